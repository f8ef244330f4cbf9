import {
  type AgentNotification,
  type ApprovalRecord,
  GoondanError,
  type JsonObject,
  resolveValueSource,
  type TurnResult,
} from '@goondan/core';
import { Bot, type Context, GrammyError } from 'grammy';
import type { Channel, ChannelLogger, ChannelOrchestrator } from './channel-types.ts';
import { ChatApprovals } from './chat-approvals.ts';
import { describeApiError } from './describe-api-error.ts';
import { honourRetryAfter } from './honour-retry-after.ts';
import { parseTelegramConfig, type TelegramConfig } from './parse-telegram-config.ts';
import { reportRetriedFailures } from './report-retried-failures.ts';
import { splitMessage } from './split-message.ts';
import { startTyping } from './typing-indicator.ts';

export const TELEGRAM_SOURCE = { kind: 'user', name: 'telegram' } as const;
/** How long the start waits for getMe before it gives up with E_CHANNEL_API (a stalled API must not hang it). */
export const GET_ME_TIMEOUT_MS = 15_000;
/** Any Bot API call is given up this many seconds after the long poll's own timeout (grammY's default is 500 s). */
export const API_TIMEOUT_MARGIN_SECONDS = 30;

/** The agent instance that holds the conversation of one chat. */
export function telegramInstanceKey(chatId: number): string {
  return `telegram-${chatId}`;
}

/** The chat of a `telegram-<chatId>` instance key, or null. */
export function chatOfInstanceKey(instanceKey: string): number | null {
  const match = /^telegram-(-?\d+)$/.exec(instanceKey);
  return match ? Number(match[1]) : null;
}

export interface StartTelegramChannelOptions {
  /** The Agent that answers the bot (one instance per chat). */
  agent: string;
  /** The merged config of `Extension/telegram` on that Agent (or one already parsed). */
  config: JsonObject | TelegramConfig;
  orchestrator: ChannelOrchestrator;
  logger: ChannelLogger;
  /** Aborting it stops the channel, as stop() does. */
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  /** How long getMe may take (default GET_ME_TIMEOUT_MS; tests shorten it). */
  getMeTimeoutMs?: number;
}

/**
 * Starts a Telegram bot for one Agent (docs/channels.md): checks the token with getMe (E_CHANNEL_AUTH when Telegram
 * refuses it), then long-polls getUpdates. A text message from an allowed chat becomes a `user.message` event
 * (source user:telegram) for the instance `telegram-<chatId>`; the turn's reply goes back as plain text, split at
 * 4096 characters, with "typing…" shown meanwhile. Approvals of that instance appear in the chat with buttons.
 * Updates from other chats are refused with an E_CHANNEL_CHAT_NOT_ALLOWED log line and no reply.
 */
export async function startTelegramChannel(options: StartTelegramChannelOptions): Promise<Channel> {
  const { agent, orchestrator, logger } = options;
  const config =
    'allowedChatIds' in options.config && 'pollTimeoutSeconds' in options.config
      ? (options.config as TelegramConfig)
      : parseTelegramConfig(options.config as JsonObject, agent);
  const token = resolveValueSource(config.token, options.env);
  const allowed = new Set(config.allowedChatIds);
  const stopping = new AbortController();
  options.signal?.addEventListener('abort', () => void stop(), { once: true });

  const describe = describeApiError(token);
  const bot = new Bot(token, {
    client: { apiRoot: config.apiRoot, timeoutSeconds: config.pollTimeoutSeconds + API_TIMEOUT_MARGIN_SECONDS },
  });
  bot.api.config.use(
    reportRetriedFailures({
      describe,
      onFailing: (method, why) =>
        logger.error(
          `E_CHANNEL_API telegram ${agent}: ${method} failed: ${why}; retrying every 3 s until the Bot API answers`,
        ),
      onRecovered: (method) => logger.info(`telegram ${agent}: ${method} answers again`),
    }),
  );
  bot.api.config.use(
    honourRetryAfter({
      signal: stopping.signal,
      onWait: (method, seconds, why) => logger.warn(`telegram ${agent}: ${method} ${why}; retrying in ${seconds}s`),
    }),
  );
  bot.botInfo = await checkToken(bot, agent, config.apiRoot, describe, options.getMeTimeoutMs ?? GET_ME_TIMEOUT_MS);

  const chats = new Map<number, Promise<void>>();

  const refuse = (chatId: number, what: string) =>
    logger.warn(
      `E_CHANNEL_CHAT_NOT_ALLOWED telegram ${agent}: ${what} from chat ${chatId} ignored; it is not in config.allowedChatIds (add ${chatId} there to let it in).`,
    );

  const send = async (chatId: number, text: string, extra: object = {}) => {
    try {
      return await bot.api.sendMessage(chatId, text, extra);
    } catch (thrown) {
      logger.error(`E_CHANNEL_API telegram ${agent}: sendMessage to chat ${chatId} failed: ${describe(thrown)}`);
      return null;
    }
  };
  const approvals = new ChatApprovals({
    instanceOf: (chatId) => ({ agent, instanceKey: telegramInstanceKey(chatId) }),
    answer: (answer) => orchestrator.answerApproval(answer),
    send,
    edit: async (chatId, messageId, text) => {
      await bot.api
        .editMessageText(chatId, messageId, text, { reply_markup: { inline_keyboard: [] } })
        .catch((thrown) => logger.warn(`telegram ${agent}: could not update approval message: ${describe(thrown)}`));
    },
  });

  async function converse(chatId: number, text: string, ctx: Context): Promise<void> {
    const stopTyping = startTyping({
      send: () => bot.api.sendChatAction(chatId, 'typing'),
      paused: () => approvals.waitingIn(chatId),
    });
    try {
      const instanceKey = telegramInstanceKey(chatId);
      if (text.trim() === '/reset') {
        await orchestrator.request({ input: '', type: 'conversation.reset', target: agent, instanceKey });
        await send(chatId, 'The conversation starts afresh.');
        return;
      }
      const from = ctx.from;
      const result = await orchestrator.request({
        input: text,
        target: agent,
        instanceKey,
        source: TELEGRAM_SOURCE,
        data: {
          telegram: { chatId, messageId: ctx.msg?.message_id ?? null, from: from?.username ?? from?.id ?? null },
        },
      });
      for (const piece of replyPieces(result)) await send(chatId, piece);
    } catch (thrown) {
      const code = thrown instanceof GoondanError ? thrown.code : 'E_CHANNEL_API';
      logger.error(`${code} telegram ${agent}: the message from chat ${chatId} was not answered: ${describe(thrown)}`);
      await send(chatId, `Sorry, this message could not be answered (${code}).`);
    } finally {
      stopTyping();
      void approvals.closeChat(chatId);
    }
  }

  bot.on('message', (ctx) => {
    const chatId = ctx.chat.id;
    if (!allowed.has(chatId)) return refuse(chatId, 'a message');
    const text = ctx.message.text;
    if (text === undefined) {
      void send(chatId, 'Only text messages are read for now.');
      return;
    }
    // Not awaited: grammY handles updates one by one, and a turn may wait for a button press of a later update.
    const turn = (chats.get(chatId) ?? Promise.resolve()).then(() => converse(chatId, text, ctx));
    chats.set(chatId, turn);
    void turn.finally(() => {
      if (chats.get(chatId) === turn) chats.delete(chatId);
    });
  });

  bot.on('callback_query:data', async (ctx) => {
    const chatId = ctx.callbackQuery.message?.chat.id;
    if (chatId === undefined || !allowed.has(chatId)) {
      refuse(chatId ?? 0, 'a button press');
      await ctx.answerCallbackQuery({ text: 'This chat is not allowed.' }).catch(() => {});
      return;
    }
    const from = ctx.callbackQuery.from;
    const by = `telegram:${from.username ?? from.id}`;
    const outcome = await approvals.press({ chatId, data: ctx.callbackQuery.data, by });
    await ctx.answerCallbackQuery(outcome ? { text: outcome.text } : {}).catch(() => {});
    if (outcome?.clearButtons) {
      await ctx.editMessageReplyMarkup({ reply_markup: { inline_keyboard: [] } }).catch(() => {});
    }
  });

  bot.catch((error) => logger.error(`E_CHANNEL_API telegram ${agent}: handling an update failed: ${describe(error)}`));

  const polling = bot
    .start({ timeout: config.pollTimeoutSeconds, allowed_updates: ['message', 'callback_query'] })
    .catch((thrown) => {
      if (stopping.signal.aborted) return;
      const code = thrown instanceof GrammyError && thrown.error_code === 401 ? 'E_CHANNEL_AUTH' : 'E_CHANNEL_API';
      logger.error(`${code} telegram ${agent}: polling stopped: ${describe(thrown)}`);
    });

  let stopped: Promise<void> | null = null;
  function stop(): Promise<void> {
    stopped ??= (async () => {
      stopping.abort();
      if (bot.isRunning()) await bot.stop().catch(() => {});
      await polling;
    })();
    return stopped;
  }

  logger.info(`telegram ${agent}: @${bot.botInfo.username} is listening (${allowed.size} allowed chat(s))`);
  return {
    kind: 'telegram',
    agent,
    allowedChatIds: [...allowed],
    notify({ instanceKey, event }: AgentNotification) {
      const chatId = chatOfInstanceKey(instanceKey);
      if (chatId === null || !allowed.has(chatId)) return;
      const record = event.data as unknown as ApprovalRecord;
      if (event.type === 'runtime.approval.requested') approvals.show(record, chatId);
      else if (event.type === 'runtime.approval.resolved') void approvals.close(record);
    },
    stop,
  };
}

/** The text pieces to send for a turn's result (a turn that ended without text says how it ended). */
function replyPieces(result: TurnResult): string[] {
  const pieces = splitMessage(result.text);
  if (pieces.length > 0) return pieces;
  if (result.status === 'completed') return [];
  const why = result.error?.message ?? result.reason ?? result.status;
  return splitMessage(`(The turn ended without a reply: ${why})`);
}

/**
 * getMe, once: a refused token is E_CHANNEL_AUTH, an unreachable, garbled or silent API E_CHANNEL_API (after
 * `timeoutMs`) — both before any polling, and neither naming the token.
 */
async function checkToken(
  bot: Bot,
  agent: string,
  apiRoot: string,
  describe: (thrown: unknown) => string,
  timeoutMs: number,
) {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    // grammY types the signal with its abort-controller shim; a standard AbortSignal is what it uses at run time.
    return await bot.api.getMe(timeout.signal as unknown as Parameters<typeof bot.api.getMe>[0]);
  } catch (thrown) {
    if (thrown instanceof GrammyError && (thrown.error_code === 401 || thrown.error_code === 404)) {
      throw new GoondanError(
        'E_CHANNEL_AUTH',
        `Telegram refused the bot token of Agent '${agent}' (${describe(thrown)}).`,
      );
    }
    const why = timeout.signal.aborted ? `no answer within ${timeoutMs / 1000}s` : describe(thrown);
    throw new GoondanError('E_CHANNEL_API', `Telegram channel of Agent '${agent}': getMe at ${apiRoot} failed: ${why}`);
  } finally {
    clearTimeout(timer);
  }
}
