import { GoondanError } from '@goondan/core/errors';

/** A fetch for DAV clients that turns what goes wrong on the wire into coded errors, and keeps the first one. */
export interface BoundedFetch {
  fetch: typeof globalThis.fetch;
  /** The first coded failure seen (a library may swallow an error and fail later for a vaguer reason). */
  failure(): GoondanError | undefined;
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
}): BoundedFetch {
  let first: GoondanError | undefined;
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
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: bounded as typeof globalThis.fetch, failure: () => first };
}
