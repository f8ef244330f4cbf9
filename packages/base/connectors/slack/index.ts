// Connector/slack of @goondan/base (docs/connectors.md#slack): Slack's Events API over HTTP. Every request must
// carry a valid v0 signature made with the app's signing secret, no older than 5 minutes; anything else is
// answered 401 and emits nothing. `url_verification` is answered with its challenge; `app_mention` and `message`
// events (not from bots, not edits) are emitted, each event_id once (a replay or Slack's retry of a delivery already
// taken is acknowledged and skipped; a retry of one that never arrived is emitted), and each message once (a
// mention comes as app_mention and as message: once-per-message.ts). A delivery is answered 200 only once the host
// has taken its event: one it refuses at shutdown is answered 503, so Slack delivers it again later. The agent's
// reply is posted to the same thread with chat.postMessage when SLACK_BOT_TOKEN is given (post-slack-message.ts).
import type { ConnectorContext, ConnectorReply } from '../runtime/connector-types.ts';
import { oncePerMessage } from './once-per-message.ts';
import { postSlackMessage } from './post-slack-message.ts';
import { verifySlackSignature } from './verify-slack-signature.ts';

const MAX_BODY_BYTES = 1024 * 1024;
const EMITTED = new Set(['app_mention', 'message']);
/** Event ids taken, remembered this many (Slack retries within minutes; a signature is good for 5). */
const SEEN_EVENT_IDS = 10_000;
/** How long a `message` that mentions the app waits for its `app_mention` (Slack sends both at once; 3 s to answer). */
const MENTION_HOLD_MS = 1_000;

interface SlackEvent {
  type?: string;
  subtype?: string;
  bot_id?: string;
  text?: string;
  user?: string;
  channel?: string;
  channel_type?: string;
  ts?: string;
  thread_ts?: string;
}

/** Whether `text` mentions the app's bot user (`<@U…>`), named by the payload's authorizations (authed_users before). */
function mentionsApp(payload: Record<string, unknown>, text: string): boolean {
  const authorizations = Array.isArray(payload.authorizations) ? payload.authorizations : [];
  const ids = [
    ...authorizations.map((authorization) => (authorization as { user_id?: unknown } | null)?.user_id),
    ...(Array.isArray(payload.authed_users) ? payload.authed_users : []),
  ].filter((id): id is string => typeof id === 'string' && id !== '');
  return ids.some((id) => text.includes(`<@${id}>`) || text.includes(`<@${id}|`));
}

function eventOf(payload: Record<string, unknown>) {
  const event = (payload.event ?? {}) as SlackEvent;
  if (!event.type || !EMITTED.has(event.type) || event.bot_id || event.subtype) return null;
  if (typeof event.channel !== 'string' || typeof event.user !== 'string' || typeof event.ts !== 'string') return null;
  return {
    name: event.type,
    message: { type: 'text' as const, text: event.text ?? '' },
    properties: {
      channel_id: event.channel,
      user_id: event.user,
      ts: event.ts,
      ...(event.thread_ts ? { thread_ts: event.thread_ts } : {}),
      ...(typeof payload.team_id === 'string' ? { team_id: payload.team_id } : {}),
      ...(event.channel_type ? { channel_type: event.channel_type } : {}),
    },
  };
}

/** A failure the runner logs as `CODE message`, without a stack (this process does without @goondan/core). */
function codedError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** Bun.serve, its failure (a port in use) said as E_SERVE_LISTEN_FAILED with the address and what to change. */
function listen<T>(start: () => T, address: string): T {
  try {
    return start();
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    throw codedError(
      'E_SERVE_LISTEN_FAILED',
      `Connector/slack cannot listen on ${address} (${reason}); set config.PORT (and HOST) to a free address`,
    );
  }
}

export default async function slack(ctx: ConnectorContext): Promise<void> {
  const signingSecret = ctx.secrets.SLACK_SIGNING_SECRET;
  if (!signingSecret) {
    throw codedError(
      'E_CONNECTION_INVALID',
      "secrets.SLACK_SIGNING_SECRET is required: give the Connection the Slack app's Basic Information → Signing Secret",
    );
  }
  const path = ctx.config.PATH ?? '/slack/events';
  const apiRoot = (ctx.config.API_ROOT ?? 'https://slack.com/api').replace(/\/+$/, '');
  // Insertion-ordered: the oldest id leaves first.
  const seen = new Set<string>();
  const firstTime = (eventId: unknown): boolean => {
    if (typeof eventId !== 'string' || eventId === '') return true;
    if (seen.has(eventId)) return false;
    seen.add(eventId);
    if (seen.size > SEEN_EVENT_IDS) seen.delete(seen.values().next().value as string);
    return true;
  };
  const messages = oncePerMessage({ holdMs: MENTION_HOLD_MS, limit: SEEN_EVENT_IDS });
  /** Emits one delivery's event: 200 once the host took it (or it is not to be emitted), 503 when it refused. */
  const deliver = async (payload: Record<string, unknown>): Promise<Response> => {
    const event = eventOf(payload);
    if (!event) return new Response(null, { status: 200 });
    const key = `${event.properties.channel_id} ${event.properties.ts}`;
    const mention = event.name === 'message' && mentionsApp(payload, event.message.text);
    if (!(await messages.take(key, mention))) return new Response(null, { status: 200 });
    try {
      await ctx.emit(event);
    } catch (thrown) {
      if ((thrown as { code?: unknown } | null)?.code !== 'E_AGENT_SHUTTING_DOWN') {
        ctx.logger.warn(String(thrown));
        return new Response(null, { status: 200 });
      }
      // Not taken (gdn serve is shutting down): unconfirmed, so Slack sends it again, and that delivery is emitted.
      if (typeof payload.event_id === 'string') seen.delete(payload.event_id);
      messages.forget(key);
      ctx.logger.warn(
        `E_AGENT_SHUTTING_DOWN ${event.name} ${payload.event_id ?? ''} answered 503: Slack delivers it again`,
      );
      return new Response('shutting down', { status: 503 });
    }
    return new Response(null, { status: 200 });
  };
  const hostname = ctx.config.HOST ?? '127.0.0.1';
  const port = Number(ctx.config.PORT ?? 3000);
  const server = listen(
    () =>
      Bun.serve({
        hostname,
        port,
        maxRequestBodySize: MAX_BODY_BYTES,
        // Never Bun's development error page (it shows the source, the stack and the working directory).
        development: false,
        error(thrown) {
          ctx.logger.error(`E_CONNECTOR_FAILED handling a request to ${path}: ${(thrown as Error)?.message ?? thrown}`);
          return new Response('internal error', { status: 500 });
        },
        async fetch(request) {
          const url = new URL(request.url);
          if (url.pathname !== path) return new Response('not found', { status: 404 });
          if (request.method !== 'POST') return new Response('method not allowed', { status: 405 });
          const body = await request.text();
          const refused = verifySlackSignature({
            signingSecret,
            timestamp: request.headers.get('x-slack-request-timestamp'),
            signature: request.headers.get('x-slack-signature'),
            body,
            nowSeconds: Math.floor(Date.now() / 1000),
          });
          if (refused) {
            ctx.logger.warn(`E_CONNECTOR_SIGNATURE refused a request to ${path}: ${refused}`);
            return new Response('invalid signature', { status: 401 });
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(body);
          } catch {
            return new Response('body is not JSON', { status: 400 });
          }
          // Signed, yet not an event envelope (null, a number, an array): Slack never sends one.
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            ctx.logger.warn(`E_CONNECTOR_EVENT_INVALID refused a request to ${path}: the body is not a JSON object`);
            return new Response('body is not a JSON object', { status: 400 });
          }
          const payload = parsed as Record<string, unknown>;
          if (payload.type === 'url_verification') return Response.json({ challenge: payload.challenge });
          // Slack sends an event again (X-Slack-Retry-Num) when it got no 200 within 3 s: skipped if that delivery was
          // taken, emitted if it never arrived (this process was restarting). A replayed request is skipped the same way.
          if (payload.type === 'event_callback' && firstTime(payload.event_id)) return deliver(payload);
          return new Response(null, { status: 200 });
        },
      }),
    `${hostname}:${port}`,
  );
  ctx.logger.info(`slack events listening on http://${server.hostname}:${server.port}${path}`);

  ctx.onReply(async (reply: ConnectorReply) => {
    const token = ctx.secrets.SLACK_BOT_TOKEN;
    const properties = reply.event.properties ?? {};
    if (!token || reply.text === '' || typeof properties.channel_id !== 'string') return;
    const thread = properties.thread_ts ?? properties.ts;
    const outcome = await postSlackMessage({
      apiRoot,
      token,
      channel: properties.channel_id,
      threadTs: typeof thread === 'string' ? thread : undefined,
      text: reply.text,
      signal: ctx.signal,
      onWait: (seconds, why) => ctx.logger.warn(`chat.postMessage: ${why}; trying again in ${seconds} s`),
    });
    if (!outcome.ok) ctx.logger.error(`E_CHANNEL_API chat.postMessage failed: ${outcome.error}`);
  });
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.stop();
}
