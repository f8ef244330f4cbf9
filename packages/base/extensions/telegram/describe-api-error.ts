import { GrammyError, HttpError } from 'grammy';

/** What stands in for the bot token wherever a Bot API answer or a network error would show it. */
export const TOKEN_PLACEHOLDER = '<bot token>';

/**
 * A function describing what a Bot API call threw, in one line, with the bot token cut out: a proxy or a fake API
 * may echo the request path (`/bot<token>/getMe`) in its error description, and no log line may carry the token.
 * @example describeApiError('123:abc')(new GrammyError(...)) // '400 Bad Request: ... /bot<bot token>/getMe'
 */
export function describeApiError(token: string): (thrown: unknown) => string {
  const forms = [...new Set([token, encodeURIComponent(token)])].filter((form) => form !== '');
  const redact = (text: string) => forms.reduce((acc, form) => acc.split(form).join(TOKEN_PLACEHOLDER), text);
  const describe = (thrown: unknown): string => {
    if (thrown instanceof GrammyError) return `${thrown.error_code} ${thrown.description}`;
    if (thrown instanceof HttpError) return `network error: ${describe(thrown.error)}`;
    return thrown instanceof Error ? thrown.message : String(thrown);
  };
  return (thrown) => redact(describe(thrown));
}
