/**
 * Extension memory (docs/assistant.md#memory): before the latest user message, the model reads the saved
 * memories that match it (the current workspace's, and the current user's personal ones). The block is worked out once, when
 * the turn of that message starts, and kept (instance state, by message id), so every later step and turn shows
 * the same block at the same place: what the model reads only grows at its end, and the prompt-cache prefix
 * (system prompt, tools, earlier messages and their blocks) stays byte-identical. Nothing goes into the system
 * prompt or the tools. Only what the model reads is changed; the stored conversation is not.
 *
 * config:
 *   limit: 5           # most memories shown, 1-20
 *   bundleDir: ...      # where assistant.db lives, when the workdir is not under <bundle>/.goondan/workspaces/
 */
import type { ExtensionApi, JsonObject, Message } from '@goondan/core';
import { searchMemory } from '../../src/memory/memory-store.ts';
import { peopleDatabase, speakerOf } from '../../src/people/people-database.ts';
import { currentProfile } from '../../src/people/people-store.ts';
import { callerWorkspace } from '../../src/workspaces/caller-workspace.ts';
import { latestUserIndex, messageText, recallMessage, recallText } from './recall-message.ts';

const RECALLS_KEY = 'recalls';

/** Outer (early), after oauth-guidance: the block is in place before a message window trims. */
export const MEMORY_STEP_PRIORITY = -5;

function readLimit(config: Readonly<JsonObject>): number {
  const { limit = 5 } = config;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 20)
    throw new Error(`config.limit must be an integer from 1 to 20, got ${JSON.stringify(limit)}.`);
  return limit;
}

export function register(api: ExtensionApi): void {
  const limit = readLimit(api.config);
  const where = { workdir: api.workdir ?? process.cwd(), config: api.config };
  let lastTurn: string | undefined;

  /** The recall block text for the latest user message, or null when no memory matches. */
  const recall = (messages: readonly Message[], latest: number): string | null => {
    try {
      const db = peopleDatabase(where);
      const person = currentProfile(db, speakerOf(api));
      const found = searchMemory(db, messageText(messages[latest]!), {
        personalOwner: person?.id ?? null,
        workspace: callerWorkspace({ ...where, agentName: api.agentName, instanceKey: api.instanceKey })?.id ?? null,
        limit,
        mode: 'any',
      });
      return found.length > 0 ? recallText(found, person?.name ?? null) : null;
    } catch (thrown) {
      api.logger.warn(`memory: could not read memories: ${String(thrown)}`);
      return null;
    }
  };

  // One message object per block, from step to step: the runtime converts a message for the model once, and knows
  // it by the object (a new object each step would be converted again with every message after it).
  const blocks = new Map<string, { text: string; message: Message }>();
  const blockMessage = (id: string, text: string): Message => {
    const known = blocks.get(id);
    if (known?.text === text) return known.message;
    const message = recallMessage(text, api.extensionName);
    blocks.set(id, { text, message });
    return message;
  };

  api.onConversationReset(() => {
    api.state.delete(RECALLS_KEY);
    blocks.clear();
  });
  api.pipeline.register(
    'step',
    async (ctx) => {
      let recalls = api.state.get<Record<string, string>>(RECALLS_KEY) ?? {};
      const latest = latestUserIndex(ctx.messages);
      if (lastTurn !== ctx.turnId && latest >= 0) {
        lastTurn = ctx.turnId;
        const latestId = ctx.messages[latest]!.id;
        if (!(latestId in recalls)) {
          // Blocks of messages no longer in the conversation (reset, compaction) are dropped.
          const present = new Set(ctx.messages.map((message) => message.id));
          recalls = Object.fromEntries(Object.entries(recalls).filter(([id]) => present.has(id)));
          const text = recall(ctx.messages, latest);
          if (text !== null) recalls[latestId] = text;
          api.state.set(RECALLS_KEY, recalls);
        }
      }
      for (const id of blocks.keys()) if (!(id in recalls)) blocks.delete(id);
      if (Object.keys(recalls).length > 0) {
        ctx.messages = ctx.messages.flatMap((message) => {
          const text = recalls[message.id];
          return text === undefined ? [message] : [blockMessage(message.id, text), message];
        });
      }
      return ctx.next();
    },
    { priority: MEMORY_STEP_PRIORITY },
  );
}
