// Connector/terminal of @goondan/base (docs/connectors.md#terminal): each line typed on the standard input of
// `gdn serve` is a `message` event; the agent's reply is printed on its standard output. For trying a Connection
// by hand; `gdn chat` is the full terminal client.
import { userInfo } from 'node:os';
import type { ConnectorContext } from '../runtime/connector-types.ts';

export default async function terminal(ctx: ConnectorContext): Promise<void> {
  const user = ctx.config.USER ?? process.env.USER ?? userInfo().username;
  ctx.onReply((reply) => {
    if (reply.text !== '') process.stdout.write(`${reply.agent}> ${reply.text}\n`);
  });
  ctx.logger.info('reading lines from standard input');
  const reader = Bun.stdin.stream().pipeThrough(new TextDecoderStream()).getReader();
  ctx.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
  let pending = '';
  while (!ctx.signal.aborted) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
    if (done) break;
    pending += value;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      await ctx.emit({ name: 'message', message: { type: 'text', text: line }, properties: { user } });
    }
  }
  // Standard input ended (or the host stops us): wait for the replies still to come until told to stop.
  if (!ctx.signal.aborted)
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
}
