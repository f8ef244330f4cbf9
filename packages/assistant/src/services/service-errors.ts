import { GoondanError } from '@goondan/core/errors';

/** Longest piece of a service's own error text quoted in a message (it may be an HTML page). */
const QUOTED_CHARS = 300;

/** A service's error body, cut short and on one line, for a message. */
export function quoteServiceText(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line;
}

/** Seconds to wait from a `retry-after` header (seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The coded error for a refused HTTP answer of an outside service: 401/403 a credential problem, 404 not found,
 * 429 rate limited (with how long to wait), anything else E_SERVICE_FAILED. `credential` names where the key comes
 * from, so the suggestion says what to change; `body` is quoted (shortened), never the request.
 */
export function serviceHttpError(options: {
  service: string;
  status: number;
  statusText?: string;
  body?: string;
  retryAfter?: number;
  credential?: string;
  /** The service said "rate limited" another way than 429 (GitHub: 403 with x-ratelimit-remaining 0). */
  rateLimited?: boolean;
}): GoondanError {
  const { service, status } = options;
  const said = options.body ? `: ${quoteServiceText(options.body)}` : '';
  const head = `${service} answered ${status}${options.statusText ? ` ${options.statusText}` : ''}${said}`;
  if (status === 429 || options.rateLimited) {
    const wait = options.retryAfter;
    return new GoondanError('E_SERVICE_RATE_LIMITED', head, {
      suggestion:
        wait === undefined
          ? `${service} limits how often it may be called; wait a minute before trying again.`
          : `${service} limits how often it may be called; try again in ${wait} s.`,
    });
  }
  if (status === 401 || status === 403) {
    return new GoondanError('E_SERVICE_AUTH', head, {
      suggestion: options.credential
        ? `Check the credential (${options.credential}): it is wrong, expired, or lacks the permission this call needs.`
        : undefined,
    });
  }
  if (status === 404) return new GoondanError('E_SERVICE_NOT_FOUND', head);
  return new GoondanError('E_SERVICE_FAILED', head);
}

/** The service could not be reached at all (DNS, refused connection, timeout). */
export function serviceUnreachable(service: string, url: string, cause: unknown): GoondanError {
  const reason = (cause as Error | undefined)?.message ?? String(cause);
  return new GoondanError('E_SERVICE_UNREACHABLE', `${service} at ${originOf(url)} could not be reached: ${reason}`, {
    cause,
  });
}

/** The scheme, host and port of a URL: never its path or query, which may carry a key. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
