// Connector/telegram of @goondan/base (docs/connectors.md#telegram): the Telegram channel as a Connector in a
// process of its own. It long-polls getUpdates (nothing needs to reach the host), emits a `telegram_message` for
// each text message of an allowed chat, and sends the agent's reply back to that chat as plain text split under
// 4096 characters, honouring 429 retry_after (the same code as Extension/telegram, docs/channels.md). Messages from
// chats not in ALLOWED_CHAT_IDS are refused with a log line and emit nothing. A tool call of its turn that waits for
// approval shows in the chat with the same buttons as Extension/telegram's (ChatApprovals); a press goes to the host.
// Telegram is told only of updates the host took (poll-updates.ts): one refused at shutdown is fetched again at the
// next start.
import { Bot, GrammyError } from 'grammy';
import { ChatApprovals } from '../../extensions/telegram/chat-approvals.ts';
import { describeApiError } from '../../extensions/telegram/describe-api-error.ts';
import { honourRetryAfter } from '../../extensions/telegram/honour-retry-after.ts';
import { reportRetriedFailures } from '../../extensions/telegram/report-retried-failures.ts';
import { splitMessage } from '../../extensions/telegram/split-message.ts';
import type { ConnectorContext } from '../runtime/connector-types.ts';
import { pollUpdates } from './poll-updates.ts';

/** As Extension/telegram's (not imported: that file loads @goondan/core, which this process does without). */
const DEFAULT_API_ROOT = 'https://api.telegram.org';
/**
 * A Bot API call is given up this long after its long poll would have ended, as Extension/telegram's calls are:
 * grammY's own bound is 500 s, so a server that accepts and never answers held getMe or a reply for minutes.
 */
const API_TIMEOUT_MARGIN_SECONDS = 30;

/**
 * A failure the runner logs as `CODE message`, without a stack (as check-connector-event.ts does: this process
 * does without @goondan/core). The message says what to do.
 */
function channelError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** A refusal of the token (401; 404 for one not even shaped like a token) is E_CHANNEL_AUTH, the rest E_CHANNEL_API. */
function botApiError(thrown: unknown, method: string, describe: (thrown: unknown) => string) {
  const refused = thrown instanceof GrammyError && (thrown.error_code === 401 || thrown.error_code === 404);
  const reason = describe(thrown);
  return refused
    ? channelError(
        'E_CHANNEL_AUTH',
        `Telegram refused the bot token (${method}: ${reason}); put the token from BotFather in secrets.TELEGRAM_BOT_TOKEN`,
      )
    : channelError('E_CHANNEL_API', `${method} failed: ${reason}`);
}

function chatIds(text: string | undefined): Set<number> {
  const ids = (text ?? '').split(/[\s,]+/).filter((part) => part !== '');
  for (const id of ids) {
    if (!/^-?\d+$/.test(id)) {
      throw channelError(
        'E_CHANNEL_CONFIG_INVALID',
        `config.ALLOWED_CHAT_IDS: "${id}" is not a chat id (comma-separated integers; groups are negative)`,
      );
    }
  }
  return new Set(ids.map(Number));
}

export default async function telegram(ctx: ConnectorContext): Promise<void> {
  const token = ctx.secrets.TELEGRAM_BOT_TOKEN;
  if (!token) {
    throw channelError('E_CHANNEL_CONFIG_INVALID', 'secrets.TELEGRAM_BOT_TOKEN is required (the token from BotFather)');
  }
  const allowed = chatIds(ctx.config.ALLOWED_CHAT_IDS);
  const pollTimeout = Number(ctx.config.POLL_TIMEOUT_SECONDS ?? 30);
  const describe = describeApiError(token);
  const bot = new Bot(token, {
    client: {
      apiRoot: (ctx.config.API_ROOT ?? DEFAULT_API_ROOT).replace(/\/+$/, ''),
      timeoutSeconds: pollTimeout + API_TIMEOUT_MARGIN_SECONDS,
    },
  });
  bot.api.config.use(
    reportRetriedFailures({
      describe,
      onFailing: (method, why) =>
        ctx.logger.error(`E_CHANNEL_API ${method} failed: ${why}; retrying every 3 s until the Bot API answers`),
      onRecovered: (method) => ctx.logger.info(`${method} answers again`),
    }),
  );
  bot.api.config.use(
    honourRetryAfter({
      signal: ctx.signal,
      onWait: (method, seconds, why) => ctx.logger.warn(`${method} ${why}; retrying in ${seconds}s`),
    }),
  );
  try {
    bot.botInfo = await bot.api.getMe();
  } catch (thrown) {
    throw botApiError(thrown, 'getMe', describe);
  }

  const send = async (chatId: number, text: string, extra: object = {}) =>
    bot.api.sendMessage(chatId, text, extra).catch((thrown) => {
      ctx.logger.error(`E_CHANNEL_API sendMessage failed: ${describe(thrown)}`);
      return null;
    });
  const approvals = new ChatApprovals({
    // A press for an approval this process did not show (it restarted): the host knows only what it showed.
    instanceOf: () => null,
    answer: ({ id, answer }) => ctx.answerApproval(id, answer),
    send,
    edit: async (chatId, messageId, text) => {
      await bot.api
        .editMessageText(chatId, messageId, text, { reply_markup: { inline_keyboard: [] } })
        .catch((thrown) => ctx.logger.warn(`could not update an approval message: ${describe(thrown)}`));
    },
  });
  const chatOf = (event: { properties?: Record<string, unknown> }) => {
    const chatId = event.properties?.chat_id;
    return typeof chatId === 'number' && allowed.has(chatId) ? chatId : null;
  };
  ctx.onApproval(({ phase, record, event }) => {
    const chatId = chatOf(event);
    if (phase === 'resolved') return approvals.close(record);
    if (chatId !== null) approvals.show(record, chatId);
  });

  bot.on('message', async (message) => {
    const chatId = message.chat.id;
    if (!allowed.has(chatId)) {
      ctx.logger.warn(
        `E_CHANNEL_CHAT_NOT_ALLOWED a message from chat ${chatId} ignored; add it to ALLOWED_CHAT_IDS to let it in`,
      );
      return;
    }
    const text = message.message.text;
    if (text === undefined) return;
    const from = message.from;
    await ctx.emit({
      name: 'telegram_message',
      message: { type: 'text', text },
      properties: {
        chat_id: chatId,
        message_id: message.message.message_id,
        ...(from ? { user_id: from.id } : {}),
        ...(from?.username ? { username: from.username } : {}),
      },
    });
  });
  bot.on('callback_query:data', async (update) => {
    const chatId = update.callbackQuery.message?.chat.id;
    if (chatId === undefined || !allowed.has(chatId)) {
      ctx.logger.warn(`E_CHANNEL_CHAT_NOT_ALLOWED a button press from chat ${chatId ?? '?'} ignored`);
      await update.answerCallbackQuery({ text: 'This chat is not allowed.' }).catch(() => {});
      return;
    }
    const from = update.callbackQuery.from;
    const by = `telegram:${from.username ?? from.id}`;
    const outcome = await approvals.press({ chatId, data: update.callbackQuery.data, by });
    await update.answerCallbackQuery(outcome ? { text: outcome.text } : {}).catch(() => {});
    if (outcome?.clearButtons) {
      await update.editMessageReplyMarkup({ reply_markup: { inline_keyboard: [] } }).catch(() => {});
    }
  });

  ctx.onReply(async (reply) => {
    const chatId = chatOf(reply.event);
    if (chatId === null) return;
    // The turn ended: an approval still shown waits for nothing.
    void approvals.closeChat(chatId);
    const text =
      reply.text !== ''
        ? reply.text
        : reply.status === 'completed'
          ? ''
          : `(The turn ended without a reply: ${reply.status})`;
    for (const piece of splitMessage(text)) await send(chatId, piece);
  });

  ctx.logger.info(`@${bot.botInfo.username} is polling (${allowed.size} allowed chat(s))`);
  // getUpdates is retried except when the token is refused (revoked meanwhile) or another poller took it.
  const left = await pollUpdates({
    bot,
    timeoutSeconds: pollTimeout,
    allowedUpdates: ['message', 'callback_query'],
    signal: ctx.signal,
    onError: (thrown) => ctx.logger.error(`E_CHANNEL_API handling an update failed: ${describe(thrown)}`),
  }).catch((thrown) => {
    throw botApiError(thrown, 'getUpdates', describe);
  });
  if (left !== undefined) {
    ctx.logger.warn(
      `E_AGENT_SHUTTING_DOWN update ${left} left with Telegram (gdn serve takes no more events); fetched again at the next start`,
    );
  }
  // An update refused at shutdown ended the poll: the replies of turns still running come until the stop.
  if (!ctx.signal.aborted)
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
}
