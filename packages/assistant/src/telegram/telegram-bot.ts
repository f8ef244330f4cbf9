import { readTelegramBotSettings, writeTelegramBotSettings } from '@goondan/base';
import { GoondanError, rememberSecretValue, type ToolContext } from '@goondan/core';
import type { Api } from 'grammy';
import { boundedFetch } from '../services/bounded-fetch.ts';
import { parseServiceJson } from '../services/read-bounded-body.ts';
import { serviceCredential } from '../services/service-credential.ts';
import { quoteServiceText, serviceHttpError, serviceUnreachable } from '../services/service-errors.ts';
import { assistantBundleRoot } from '../store/assistant-bundle-root.ts';

export const DEFAULT_TELEGRAM_API_ROOT = 'https://api.telegram.org';
const TOKEN_SHAPE = /^\d{3,20}:[A-Za-z0-9_-]{30,100}$/;
/** The most of one Bot API answer read (getMe and sendMessage answer a few KB). */
export const TELEGRAM_MAX_BYTES = 1024 * 1024;

/** The bundle whose stored bot the tools share with the channel of `gdn serve`. */
export function telegramBundleRoot(ctx: ToolContext): string {
  return ctx.bundle?.rootDir ?? assistantBundleRoot(ctx);
}

function apiRootOf(ctx: ToolContext): string {
  const root = ctx.config.apiRoot;
  if (root === undefined) return DEFAULT_TELEGRAM_API_ROOT;
  if (typeof root !== 'string' || !/^https?:\/\/[^/]/.test(root)) {
    throw new GoondanError('E_SERVICE_NOT_CONFIGURED', 'config.apiRoot of Tool/telegram must be an http(s) URL.');
  }
  return root.replace(/\/+$/, '');
}

/** The token: the one stored with telegram__set_token, else config.token (a ValueSource; default env TELEGRAM_BOT_TOKEN). */
export function telegramToken(ctx: ToolContext): { token: string; from: string } {
  const stored = readTelegramBotSettings(telegramBundleRoot(ctx));
  if (stored.token) return { token: stored.token, from: 'the token stored with telegram__set_token' };
  const credential = serviceCredential({
    config: ctx.config,
    key: 'token',
    defaultEnv: 'TELEGRAM_BOT_TOKEN',
    service: 'Telegram',
  });
  return { token: credential.value, from: credential.from };
}

/**
 * The Bot API's answer: `{ ok: true, result }` or `{ ok: false, error_code, description }`. Anything else (a
 * proxy's error page, JSON of another API) is coded here, quoting the answer with the token (in every Bot API URL,
 * which an error page may echo) cut out; a larger answer than TELEGRAM_MAX_BYTES is never read whole.
 */
function botApiFetch(token: string): typeof fetch {
  const bounded = boundedFetch({ maxBytes: TELEGRAM_MAX_BYTES, service: 'Telegram' });
  const checked = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const response = await bounded(input, init);
    const text = (await response.text()).split(token).join('<token>');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      if (!response.ok)
        throw serviceHttpError({
          service: 'Telegram',
          status: response.status,
          statusText: response.statusText,
          body: text,
        });
      return parseServiceJson(text, 'Telegram') as never;
    }
    const answer = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    if ((answer.ok === true && 'result' in answer) || (answer.ok === false && typeof answer.error_code === 'number'))
      return Response.json(answer);
    throw new GoondanError(
      'E_SERVICE_RESPONSE_INVALID',
      `Telegram answered ${response.status} with JSON that is not a Bot API answer: ${quoteServiceText(text)}`,
      {
        suggestion:
          'Check that config.apiRoot points at the Bot API itself (https://api.telegram.org or a local Bot API server).',
      },
    );
  };
  return checked as typeof fetch;
}

/** A grammY Api for the token (no polling: the channel of `gdn serve` owns getUpdates). */
export async function telegramApi(ctx: ToolContext, token: string): Promise<Api> {
  const { Api } = await import('grammy');
  return new Api(token, { apiRoot: apiRootOf(ctx), timeoutSeconds: 30, fetch: botApiFetch(token) as never });
}

/** grammY's failures as coded errors; the token (part of every Bot API URL) never appears in them. */
export async function telegramError(
  thrown: unknown,
  options: { ctx: ToolContext; method: string; credential: string },
) {
  const { GrammyError, HttpError } = await import('grammy');
  if (thrown instanceof GoondanError) return thrown;
  if (options.ctx.signal.aborted) return new GoondanError('E_TOOL_ABORTED', 'The Telegram call was cancelled.');
  if (thrown instanceof HttpError) {
    // A coded failure of botApiFetch (not the Bot API's answer, too large), wrapped by grammY.
    if (thrown.error instanceof GoondanError) return thrown.error;
    return serviceUnreachable('Telegram', apiRootOf(options.ctx), new Error(`${options.method} got no answer`));
  }
  if (thrown instanceof GrammyError) {
    const status = thrown.error_code;
    const description = `${options.method}: ${thrown.description}`;
    if (status === 400 && /chat not found|user not found/i.test(thrown.description)) {
      return new GoondanError('E_SERVICE_NOT_FOUND', `Telegram answered 400 ${description}`, {
        suggestion: 'A bot can write only to chats that wrote to it first (or groups it was added to); check chat_id.',
      });
    }
    return serviceHttpError({
      service: 'Telegram',
      // A malformed token is answered 404 by the Bot API: a credential problem too.
      status: status === 404 ? 401 : status,
      body: description,
      retryAfter: thrown.parameters.retry_after,
      credential: options.credential,
    });
  }
  return new GoondanError(
    'E_SERVICE_FAILED',
    `Telegram ${options.method} failed: ${(thrown as Error)?.message ?? thrown}`,
  );
}

/** Checks a token with getMe before anything is stored; answers the bot it belongs to. */
export async function verifiedBot(ctx: ToolContext, token: string) {
  const trimmed = token.trim();
  rememberSecretValue(trimmed);
  if (!TOKEN_SHAPE.test(trimmed)) {
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'That is not a bot token (BotFather gives one like 123456789:AA…).', {
      suggestion: 'Copy the whole token BotFather sent after /newbot (or /token for an existing bot).',
    });
  }
  const api = await telegramApi(ctx, trimmed);
  try {
    // grammY types its signal with the abort-controller polyfill's AbortSignal; the platform's is what it uses.
    const me = await api.getMe(ctx.signal as never);
    return { token: trimmed, bot: { id: me.id, username: me.username, firstName: me.first_name } };
  } catch (thrown) {
    throw await telegramError(thrown, { ctx, method: 'getMe', credential: 'the token given' });
  }
}

/** Stores the token (sealed) and, when given, the enabled flag. */
export function storeTelegramBot(ctx: ToolContext, change: { token?: string; enabled?: boolean }): void {
  writeTelegramBotSettings(telegramBundleRoot(ctx), change);
}
