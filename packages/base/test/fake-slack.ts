import { signSlackRequest } from '../connectors/slack/verify-slack-signature.ts';

export interface PostedSlackMessage {
  channel: string;
  text: string;
  thread_ts?: string;
}

/**
 * A fake Slack Web API on 127.0.0.1 for tests: records the chat.postMessage calls made with `token` and answers
 * `{ ok: true }`; another method or token gets Slack's `{ ok: false, error }`.
 */
export function startFakeSlackApi(token = 'xoxb-test') {
  const posted: PostedSlackMessage[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== '/api/chat.postMessage') return Response.json({ ok: false, error: 'unknown_method' });
      if (request.headers.get('authorization') !== `Bearer ${token}`)
        return Response.json({ ok: false, error: 'not_authed' });
      posted.push((await request.json()) as PostedSlackMessage);
      return Response.json({ ok: true, ts: '1.1' });
    },
  });
  return { posted, apiRoot: `http://127.0.0.1:${server.port}/api`, stop: () => server.stop(true) };
}

/** POSTs `payload` to a Slack events URL as Slack does: signed with `signingSecret`, `ageSeconds` old (default 0). */
export function postSlackEvent(
  url: string,
  payload: unknown,
  options: { signingSecret: string; ageSeconds?: number; headers?: Record<string, string> },
): Promise<Response> {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0);
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signSlackRequest({ signingSecret: options.signingSecret, timestamp, body }),
      ...options.headers,
    },
    body,
  });
}
