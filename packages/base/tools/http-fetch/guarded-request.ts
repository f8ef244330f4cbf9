import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { JsonValue } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { blockedAddressReason } from '../../src/is-blocked-address.ts';
import { concatBytes, decodeUtf8Strict } from '../../src/utf8.ts';

export const MAX_REDIRECTS = 5;

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Which addresses a request may reach. The defaults are what the tool uses; tests inject their own. */
export interface AddressPolicy {
  /** `ctx.config.allowPrivateNetwork === true` turns the address check off. */
  allowPrivateNetwork: boolean;
  /** All addresses of a hostname (default: the system resolver, every address). */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Why an address is refused, or null (default: blockedAddressReason). */
  blockedReason?: (address: string) => string | null;
}

export interface GuardedRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface GuardedResponse {
  status: number;
  statusText: string;
  /** The URL of the last hop, after redirects. */
  url: string;
  redirects: number;
  headers: Record<string, string | string[]>;
  /** Parsed JSON for JSON content types, text for valid text, else base64. */
  body: JsonValue;
  bodyEncoding: 'json' | 'text' | 'base64';
  /** Body size in bytes (after decompression). */
  bytes: number;
}

export interface RequestLimits {
  maxBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Parses a URL and refuses anything but absolute http(s) (E_HTTP_INVALID_URL). */
export function parseHttpUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = base === undefined ? new URL(text) : new URL(text, base);
  } catch {
    throw new GoondanError('E_HTTP_INVALID_URL', `'${text}' is not a valid absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GoondanError(
      'E_HTTP_INVALID_URL',
      `Only http and https URLs are allowed, not '${url.protocol}' (${url.href}).`,
    );
  }
  return url;
}

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  return dnsLookup(hostname, { all: true, verbatim: true });
}

/**
 * The check made before every hop (the first request and each redirect): resolve the host and refuse when ANY of
 * its addresses is blocked. Returns the addresses, which the connection is then pinned to, so a second DNS answer
 * (rebinding) cannot send the request elsewhere.
 */
export async function checkHop(url: URL, policy: AddressPolicy): Promise<ResolvedAddress[]> {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const family = isIP(hostname);
  let addresses: ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: hostname, family }];
  } else {
    try {
      addresses = await (policy.resolveHost ?? systemResolve)(hostname);
    } catch (thrown) {
      throw new GoondanError('E_HTTP_REQUEST_FAILED', `Could not resolve '${hostname}': ${(thrown as Error).message}`, {
        cause: thrown,
      });
    }
    if (addresses.length === 0) throw new GoondanError('E_HTTP_REQUEST_FAILED', `'${hostname}' has no addresses.`);
  }
  if (policy.allowPrivateNetwork) return addresses;
  const judge = policy.blockedReason ?? blockedAddressReason;
  for (const { address } of addresses) {
    const reason = judge(address);
    if (reason !== null) {
      const via = family === 0 ? ` ('${hostname}' resolves to it)` : '';
      throw new GoondanError(
        'E_HTTP_ADDRESS_BLOCKED',
        `Refused ${url.origin}: ${address} is not a public address (${reason})${via}.`,
      );
    }
  }
  return addresses;
}

/** A lookup that answers only with the addresses already checked. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((entry) => wanted === 0 || entry.family === wanted);
    if (usable.length === 0) {
      const error = Object.assign(new Error(`No IPv${wanted} address for ${hostname}`), { code: 'ENOTFOUND' });
      callback(error, '', 0);
      return;
    }
    if (options.all) {
      (callback as unknown as (error: null, all: ResolvedAddress[]) => void)(null, usable);
      return;
    }
    callback(null, usable[0]!.address, usable[0]!.family);
  };
}

/** Headers that must not follow a redirect to another origin. */
const credentialHeaders = ['authorization', 'cookie', 'proxy-authorization'];
/** Headers the client sets itself. */
const framingHeaders = ['content-length', 'transfer-encoding', 'connection'];

function withoutHeaders(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

function sendOnce(
  url: URL,
  request: GuardedRequest,
  addresses: ResolvedAddress[],
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(url, {
      method: request.method,
      headers: {
        'accept-encoding': 'gzip, deflate, br',
        ...withoutHeaders(request.headers, framingHeaders),
        ...(request.body ? { 'content-length': String(request.body.length) } : {}),
      },
      lookup: pinnedLookup(addresses),
      agent: false,
    });
    const onAbort = () => outgoing.destroy(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    outgoing.on('response', (response) => {
      signal.removeEventListener('abort', onAbort);
      resolve(response);
    });
    outgoing.on('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    outgoing.end(request.body);
  });
}

function headerValue(response: http.IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads the body, decompressed, refusing (E_HTTP_RESPONSE_TOO_LARGE) once it passes maxBytes. */
async function readBody(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const encoding = (headerValue(response, 'content-encoding') ?? 'identity').trim().toLowerCase();
  const declared = Number(headerValue(response, 'content-length'));
  const tooLarge = (size: string) =>
    new GoondanError(
      'E_HTTP_RESPONSE_TOO_LARGE',
      `The response body is ${size} bytes; the limit is ${maxBytes} bytes.`,
    );
  if ((encoding === 'identity' || encoding === '') && Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge(String(declared));
  }
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  const source: AsyncIterable<Buffer> = decoder ? response.pipe(decoder) : response;
  if (decoder) response.on('error', (error) => decoder.destroy(error));
  const stop = (error?: Error) => {
    response.destroy(error);
    decoder?.destroy(error);
  };
  const onAbort = () => stop(new Error('aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > maxBytes) {
        stop();
        throw tooLarge(`more than ${maxBytes}`);
      }
      chunks.push(chunk);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return concatBytes(chunks, total);
}

function decodeBody(
  bytes: Uint8Array,
  contentType: string | undefined,
): Pick<GuardedResponse, 'body' | 'bodyEncoding'> {
  const [mime = '', ...parameters] = (contentType ?? '')
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  const charset = parameters
    .find((part) => part.startsWith('charset='))
    ?.slice(8)
    .replaceAll('"', '');
  let text: string | null;
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    try {
      text = new TextDecoder(charset as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
    } catch {
      text = decodeUtf8Strict(bytes);
    }
  } else {
    text = decodeUtf8Strict(bytes);
  }
  if (text === null) return { body: Buffer.from(bytes).toString('base64'), bodyEncoding: 'base64' };
  if (mime === 'application/json' || mime.endsWith('+json')) {
    try {
      return { body: JSON.parse(text) as JsonValue, bodyEncoding: 'json' };
    } catch {
      // Not JSON after all: hand back the text.
    }
  }
  return { body: text, bodyEncoding: 'text' };
}

function flattenHeaders(response: http.IncomingMessage): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) result[name] = value;
  }
  return result;
}

/**
 * Sends a request with every hop checked (checkHop) and pinned to the checked addresses; follows up to
 * MAX_REDIRECTS redirects by hand. One deadline covers all hops and the body.
 */
export async function guardedRequest(
  request: GuardedRequest,
  policy: AddressPolicy,
  limits: RequestLimits,
): Promise<GuardedResponse> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([limits.signal, deadline]);
  const failure = (thrown: unknown): GoondanError => {
    if (thrown instanceof GoondanError) return thrown;
    if (limits.signal.aborted) return new GoondanError('E_TOOL_ABORTED', 'The request was cancelled.');
    if (deadline.aborted) {
      return new GoondanError('E_HTTP_REQUEST_FAILED', `The request did not finish within ${limits.timeoutMs} ms.`);
    }
    const code = (thrown as { code?: string } | null)?.code;
    const message = (thrown as Error | null)?.message ?? String(thrown);
    return new GoondanError(
      'E_HTTP_REQUEST_FAILED',
      `Request failed: ${message}${code && !message.includes(code) ? ` (${code})` : ''}`,
      {
        cause: thrown,
      },
    );
  };
  let current = { ...request, url: parseHttpUrl(request.url).href };
  for (let redirects = 0; ; redirects++) {
    if (signal.aborted) throw failure(signal.reason);
    const url = parseHttpUrl(current.url);
    const addresses = await checkHop(url, policy);
    let response: http.IncomingMessage;
    try {
      response = await sendOnce(url, current, addresses, signal);
    } catch (thrown) {
      throw failure(thrown);
    }
    const status = response.statusCode ?? 0;
    const location = headerValue(response, 'location');
    if ([301, 302, 303, 307, 308].includes(status) && location !== undefined) {
      response.resume();
      response.destroy();
      if (redirects >= MAX_REDIRECTS) {
        throw new GoondanError(
          'E_HTTP_REQUEST_FAILED',
          `Too many redirects (more than ${MAX_REDIRECTS}); last was to ${location}.`,
        );
      }
      const next = parseHttpUrl(location, url);
      let headers = current.headers;
      if (next.origin !== url.origin) headers = withoutHeaders(headers, credentialHeaders);
      const becomesGet = status === 303 || ((status === 301 || status === 302) && current.method === 'POST');
      current = becomesGet
        ? { method: 'GET', url: next.href, headers: withoutHeaders(headers, ['content-type']) }
        : { ...current, url: next.href, headers };
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBody(response, limits.maxBytes, signal);
    } catch (thrown) {
      throw failure(thrown);
    }
    return {
      status,
      statusText: response.statusMessage ?? '',
      url: url.href,
      redirects,
      headers: flattenHeaders(response),
      ...decodeBody(bytes, headerValue(response, 'content-type')),
      bytes: bytes.length,
    };
  }
}
