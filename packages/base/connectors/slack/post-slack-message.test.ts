import { afterAll, describe, expect, test } from 'bun:test';
import { MAX_TEXT_CHARS, postSlackMessage } from './post-slack-message.ts';

/** A fake chat.postMessage: answers each call with the next of `statuses` (then 200 { ok: true }). */
function fakeApi(statuses: number[]) {
  const texts: string[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as { text: string };
      const status = statuses.shift() ?? 200;
      // A 429 asks for a long wait (30 s): a test that sees the post end soon knows the wait was cut short.
      const headers: Record<string, string> = status === 429 ? { 'retry-after': '30' } : {};
      if (status !== 200) return Response.json({ ok: false, error: `status ${status}` }, { status, headers });
      texts.push(body.text);
      return Response.json({ ok: status === 200, ...(status === 200 ? {} : { error: 'nope' }) });
    },
  });
  servers.push(server);
  return { texts, apiRoot: `http://127.0.0.1:${server.port}/api` };
}
const servers: ReturnType<typeof Bun.serve>[] = [];
afterAll(() => {
  for (const server of servers) server.stop(true);
});

const post = (apiRoot: string, text: string, signal = new AbortController().signal) =>
  postSlackMessage({ apiRoot, token: 'xoxb-test', channel: 'C1', threadTs: '1.1', text, signal });

describe('postSlackMessage', () => {
  test('a 500 is tried again after a pause and the reply is posted once; a refusal (400) is not retried', async () => {
    const flaky = fakeApi([500]);
    expect(await post(flaky.apiRoot, 'the answer')).toEqual({ ok: true });
    expect(flaky.texts).toEqual(['the answer']);
    const refused = fakeApi([400]);
    expect(await post(refused.apiRoot, 'x')).toEqual({ ok: false, error: 'status 400' });
    expect(refused.texts).toEqual([]);
  });

  test('an answer that is not Slack JSON (an HTML page of a proxy, 200) is a failure saying so, not "200"', async () => {
    const html = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Response('<html>login to the proxy</html>', { headers: { 'content-type': 'text/html' } }),
    });
    servers.push(html);
    expect(await post(`http://127.0.0.1:${html.port}/api`, 'x')).toEqual({
      ok: false,
      error: "HTTP 200: the answer is not Slack's JSON",
    });
  });

  test('a reply longer than Slack keeps is posted in parts, in order', async () => {
    const api = fakeApi([]);
    const text = `${'a'.repeat(MAX_TEXT_CHARS)}${'b'.repeat(10)}`;
    expect(await post(api.apiRoot, text)).toEqual({ ok: true });
    expect(api.texts.map((part) => part.length)).toEqual([MAX_TEXT_CHARS, 10]);
    expect(api.texts.join('')).toBe(text);
  });

  test('a character of two UTF-16 units at the cut goes whole into the next part (no lone surrogates)', async () => {
    const api = fakeApi([]);
    const text = `${'a'.repeat(MAX_TEXT_CHARS - 1)}\u{1F600}${'b'.repeat(10)}`;
    expect(await post(api.apiRoot, text)).toEqual({ ok: true });
    expect(api.texts.every((part) => part.isWellFormed())).toBe(true);
    expect(api.texts).toEqual(['a'.repeat(MAX_TEXT_CHARS - 1), `\u{1F600}${'b'.repeat(10)}`]);
  });

  test('a long reply with paragraphs is cut at a paragraph break, not inside a word', async () => {
    const api = fakeApi([]);
    const first = 'word '.repeat(MAX_TEXT_CHARS / 5 - 10).trim();
    const text = `${first}\n\n${'second paragraph '.repeat(10).trim()}`;
    expect(await post(api.apiRoot, text)).toEqual({ ok: true });
    expect(api.texts).toEqual([first, 'second paragraph '.repeat(10).trim()]);
  });

  test('stopping the connector ends a wait for the rate limit at once', async () => {
    const limited = fakeApi([429, 429, 429]);
    const stop = new AbortController();
    const posting = post(limited.apiRoot, 'late', stop.signal);
    setTimeout(() => stop.abort(), 50);
    const started = Date.now();
    expect((await posting).ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
