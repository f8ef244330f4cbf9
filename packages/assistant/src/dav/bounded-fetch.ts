import { STATUS_CODES } from 'node:http';
import { GoondanError } from '@goondan/core/errors';

/** A fetch for DAV clients that turns what goes wrong on the wire into coded errors, and keeps the first one. */
export interface BoundedFetch {
  fetch: typeof globalThis.fetch;
  /** The first coded failure seen (a library may swallow an error and fail later for a vaguer reason). */
  failure(): GoondanError | undefined;
  /**
   * The first answer since the last usable DAV answer that was no DAV answer (an error status, a web page, broken
   * XML), as E_DAV_REQUEST_FAILED saying what came back: why a library that only says "cannot find principalUrl"
   * failed. Answers to /.well-known/ probes do not count (a 404 or a page there is normal).
   */
  unusableAnswer(): GoondanError | undefined;
}

/** A URL as errors show it: scheme, host and path; never user information, a query or a fragment. */
export function shownUrl(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.origin}${parsed.pathname}` : 'the server';
}

function statusOf(response: Response): string {
  const reason = response.statusText || STATUS_CODES[response.status] || '';
  return `HTTP ${response.status}${reason ? ` ${reason}` : ''}`;
}

/** The methods whose answer must be a DAV multistatus (RFC 4918 9.1, RFC 4791 7.8). */
const multistatusMethods = new Set(['PROPFIND', 'REPORT']);

/**
 * What is wrong with an answer, when it is no usable DAV answer: an error status (not 401/403: those are
 * E_DAV_UNAUTHORIZED, kept apart), or, to PROPFIND and REPORT, a 2xx whose body is a web page, not XML, or XML without a whole
 * <multistatus>. undefined for a usable answer.
 */
function unusable(
  url: string,
  method: string,
  response: Response,
  body: Uint8Array,
  service: string,
): GoondanError | undefined {
  const where = shownUrl(url);
  const status = statusOf(response);
  const address = `the account's ${service} address (e.g. https://caldav.fastmail.com/, https://caldav.icloud.com/, https://<nextcloud>/remote.php/dav/)`;
  if (response.status >= 300)
    return new GoondanError('E_DAV_REQUEST_FAILED', `${where} answered ${status} to ${method}.`, {
      suggestion:
        response.status >= 500
          ? `The server failed on its side: try again later, or look at its logs. If it keeps failing, check config.server.url is ${address}.`
          : `Check config.server.url is ${address}: this path is no ${service} collection the account can use.`,
    });
  if (!multistatusMethods.has(method.toUpperCase()) || body.byteLength === 0) return undefined;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() || 'no content type';
  const text = new TextDecoder()
    .decode(body)
    .replace(/^\uFEFF/, '')
    .trim();
  const pageSuggestion = `The URL leads to a web page (often a sign-in page), not the ${service} service: set config.server.url to ${address}.`;
  if (type.includes('html') || /^<!doctype html|^<html[\s>]/i.test(text))
    return new GoondanError(
      'E_DAV_REQUEST_FAILED',
      `${where} answered an HTML page (${status}, ${type}) to ${method}, not ${service}: is the URL right?`,
      { suggestion: pageSuggestion },
    );
  if (!type.includes('xml') && !text.startsWith('<'))
    return new GoondanError(
      'E_DAV_REQUEST_FAILED',
      `${where} answered something that is not ${service} (${status}, ${type}, no XML) to ${method}: is the URL right?`,
      { suggestion: pageSuggestion },
    );
  if (!/<([\w.-]+:)?multistatus[\s>]/.test(text) || !/<\/([\w.-]+:)?multistatus\s*>$/.test(text))
    return new GoondanError(
      'E_DAV_REQUEST_FAILED',
      `${where} answered ${status} to ${method} with XML that is no whole DAV multistatus (broken or cut off).`,
      {
        suggestion: `Try again; if it persists, the server (or a proxy in front of it) is sending broken answers, or config.server.url is not ${address}.`,
      },
    );
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the server';
  }
}

async function readBounded(response: Response, limit: number, host: string): Promise<Uint8Array> {
  const tooLarge = () =>
    new GoondanError('E_DAV_RESPONSE_TOO_LARGE', `${host} sent more than ${limit} bytes; the answer was dropped.`, {
      suggestion:
        "Ask for less: a shorter range (days_ahead), one calendar (calendar_name), or raise the Tool's config.maxResponseBytes.",
    });
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** The domain whose hosts share a named host's credentials (caldav.icloud.com → icloud.com), or null for an address. */
function domainOf(hostname: string): string | null {
  if (/^[\d.]+$/.test(hostname) || hostname.includes(':') || hostname.startsWith('[')) return null;
  const labels = hostname.split('.');
  const parent = labels.slice(1);
  // Without a list of public suffixes: a country's second level (co.uk, or.kr) is never a domain of its own.
  const country = labels.at(-1)?.length === 2;
  return parent.length >= (country ? 3 : 2) ? parent.join('.') : null;
}

/**
 * Whether a request to `url` carries the credentials of `server`: the same host, or another of its domain (a
 * service that moves an account to p07-caldav.icloud.com, as DAVx5 allows), never from https down to http. A
 * discovery redirect or an href naming any other host gets no credentials.
 */
export function sendsCredentials(server: string, url: string): boolean {
  const from = URL.parse(server);
  const to = URL.parse(url);
  if (!from || !to) return false;
  if (from.protocol === 'https:' && to.protocol !== 'https:') return false;
  if (to.host === from.host) return true;
  const domain = domainOf(from.hostname);
  return domain !== null && to.hostname.endsWith(`.${domain}`);
}

/**
 * A fetch bounded in time (`timeoutMs`, and the call's `signal`) and in size (`maxBytes` per response), adding
 * `headers` (the credentials) to every request to `server`'s host or domain (sendsCredentials). Connection failures are E_DAV_UNREACHABLE and 401/403 answers
 * E_DAV_UNAUTHORIZED, with the host but never a credential in the message.
 */
export function boundedFetch(options: {
  /** The configured server URL: whose credentials `headers` are. */
  server: string;
  headers: Record<string, string>;
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** What the server should speak, for messages: CalDAV, CardDAV (default DAV). */
  service?: string;
}): BoundedFetch {
  let first: GoondanError | undefined;
  let firstUnusable: GoondanError | undefined;
  const service = options.service ?? 'DAV';
  const keep = (error: GoondanError): GoondanError => {
    first ??= error;
    return error;
  };
  const bounded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const host = hostOf(url);
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
    const headers = new Headers(init?.headers);
    if (sendsCredentials(options.server, url))
      for (const [name, value] of Object.entries(options.headers)) headers.set(name, value);
    let response: Response;
    try {
      response = await fetch(url, { ...init, headers, signal: AbortSignal.any(signals) });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      if ((error as { code?: unknown }).code === 'TooManyRedirects')
        throw keep(
          new GoondanError(
            'E_DAV_REQUEST_FAILED',
            `${shownUrl(url)} redirects in a loop: the request was sent on and on and never answered.`,
            {
              suggestion:
                "Check config.server.url: a server or a proxy in front of it redirecting back (often http and https, or a path with and without its final '/'); use the address the redirects should end at, or fix the server's redirects.",
            },
          ),
        );
      throw keep(
        new GoondanError(
          'E_DAV_UNREACHABLE',
          timedOut
            ? `${host} did not answer within ${options.timeoutMs} ms.`
            : `Cannot reach ${host}: ${error instanceof Error ? error.message.replaceAll(url, host) : 'connection failed'}.`,
          {
            suggestion:
              "Check the Tool's config.server.url (scheme, host, port) and that the server is running and reachable from this host.",
          },
        ),
      );
    }
    const wellKnown = url.includes('/.well-known/');
    if ((response.status === 401 || response.status === 403) && !wellKnown) {
      await response.body?.cancel();
      keep(
        new GoondanError('E_DAV_UNAUTHORIZED', `${host} refused the credentials (HTTP ${response.status}).`, {
          suggestion:
            "Check the username and password (or token) the Tool's config.server reads from the environment; many providers (iCloud, Fastmail, Google) need an app-specific password.",
        }),
      );
    }
    const body = await readBounded(response, options.maxBytes, host).catch((error: unknown) => {
      throw error instanceof GoondanError ? keep(error) : error;
    });
    // 401 and 403 are kept as E_DAV_UNAUTHORIZED above; they neither are nor end an unusable answer.
    if (!wellKnown && response.status !== 401 && response.status !== 403) {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      const problem = unusable(url, method, response, body, service);
      if (!problem) firstUnusable = undefined;
      else firstUnusable ??= problem;
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: bounded as typeof globalThis.fetch, failure: () => first, unusableAnswer: () => firstUnusable };
}
