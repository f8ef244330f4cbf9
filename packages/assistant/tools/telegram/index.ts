/**
 * telegram__* (docs/assistant-pack-2.md#telegram): the bot of this bundle, shared with the Telegram channel of
 * `gdn serve` through the stored settings (@goondan/base readTelegramBotSettings). The token is sealed at rest,
 * remembered as a secret (masked in every log and trace) and never part of a result.
 */
import { readTelegramBotSettings } from '@goondan/base';
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import {
  storeTelegramBot,
  telegramApi,
  telegramBundleRoot,
  telegramError,
  telegramToken,
  verifiedBot,
} from '../../src/telegram/telegram-bot.ts';

function allowedChats(ctx: ToolContext): number[] | null {
  const value = ctx.config.allowedChatIds;
  return Array.isArray(value) ? value.filter((id): id is number => typeof id === 'number') : null;
}

function state(ctx: ToolContext) {
  const stored = readTelegramBotSettings(telegramBundleRoot(ctx));
  return { enabled: stored.enabled, tokenStored: stored.token !== null };
}

export const handlers = {
  get_me: async (ctx: ToolContext) => {
    const { token, from } = telegramToken(ctx);
    const api = await telegramApi(ctx, token);
    try {
      const me = await api.getMe(ctx.signal as never);
      return {
        bot: { id: me.id, username: me.username, firstName: me.first_name, canJoinGroups: me.can_join_groups ?? null },
        tokenFrom: from.startsWith('the token stored') ? 'stored' : from,
        ...state(ctx),
      };
    } catch (thrown) {
      throw await telegramError(thrown, { ctx, method: 'getMe', credential: from });
    }
  },

  send_message: async (ctx: ToolContext, input: { chat_id: number; text: string }) => {
    const allowed = allowedChats(ctx);
    if (allowed && !allowed.includes(input.chat_id)) {
      throw new GoondanError(
        'E_TOOL_INVALID_ARGS',
        `Chat ${input.chat_id} is not in the Tool's config.allowedChatIds.`,
        {
          suggestion: `Write to one of ${allowed.join(', ') || '(none)'}, or add the chat to config.allowedChatIds.`,
        },
      );
    }
    if (input.text.trim() === '') throw new GoondanError('E_TOOL_INVALID_ARGS', 'The text is empty.');
    const { token, from } = telegramToken(ctx);
    const api = await telegramApi(ctx, token);
    try {
      const sent = await api.sendMessage(input.chat_id, input.text, {}, ctx.signal as never);
      return {
        sent: true,
        chatId: sent.chat.id,
        messageId: sent.message_id,
        date: new Date(sent.date * 1000).toISOString(),
      };
    } catch (thrown) {
      throw await telegramError(thrown, { ctx, method: 'sendMessage', credential: from });
    }
  },

  enable: async (ctx: ToolContext, input: { enabled: boolean; token?: string }) => {
    const checked = input.token === undefined ? undefined : await verifiedBot(ctx, input.token);
    if (input.enabled && !checked) telegramToken(ctx); // a bot cannot run without a token: say so now
    storeTelegramBot(ctx, { enabled: input.enabled, ...(checked ? { token: checked.token } : {}) });
    return {
      ...state(ctx),
      ...(checked ? { bot: checked.bot } : {}),
      note: 'gdn serve starts or stops the bot at its next start (gdn serve reads these settings when it starts).',
    };
  },

  set_token: async (ctx: ToolContext, input: { token: string }) => {
    const checked = await verifiedBot(ctx, input.token);
    storeTelegramBot(ctx, { token: checked.token });
    return { stored: true, bot: checked.bot, ...state(ctx) };
  },
};
