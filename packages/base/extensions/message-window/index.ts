/**
 * Extension message-window: the model reads only the last `maxMessages` messages of the conversation (plus the
 * first user message, unless `keepFirstUserMessage: false`). Only what the model reads this step
 * (`ctx.messages`) is trimmed; the stored conversation keeps everything. A tool call and its results are never
 * split (see window-messages.ts).
 *
 * config:
 *   maxMessages: 40               # required, at least 2
 *   keepFirstUserMessage: true
 */
import type { ExtensionApi, JsonObject } from '@goondan/core';
import { windowMessages } from './window-messages.ts';

/** Inner (late), so the window is cut after outer step middleware has added what it adds. */
export const WINDOW_STEP_PRIORITY = 100;

function readConfig(config: Readonly<JsonObject>) {
  const { maxMessages, keepFirstUserMessage = true } = config;
  if (typeof maxMessages !== 'number' || !Number.isInteger(maxMessages) || maxMessages < 2) {
    throw new Error(`config.maxMessages must be an integer of at least 2, got ${JSON.stringify(maxMessages)}.`);
  }
  if (typeof keepFirstUserMessage !== 'boolean') throw new Error('config.keepFirstUserMessage must be true or false.');
  return { maxMessages, keepFirstUserMessage };
}

export function register(api: ExtensionApi): void {
  const { maxMessages, keepFirstUserMessage } = readConfig(api.config);
  api.pipeline.register(
    'step',
    async (ctx) => {
      ctx.messages = windowMessages(ctx.messages, maxMessages, { keepFirstUserMessage });
      return ctx.next();
    },
    { priority: WINDOW_STEP_PRIORITY },
  );
}
