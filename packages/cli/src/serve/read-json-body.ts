import { closestName, GoondanError } from '@goondan/core';
import { badRequest } from './api-error.ts';

/** The largest request body the API reads (1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Bun.serve's `maxRequestBodySize` for servers of this API: no bound of Bun's own. Bun answers a Content-Length
 * over it with a bare 413 before the handler runs; the API checks Content-Length first (createServeApi) and
 * answers its coded JSON 413, closing the connection, so the body is never read.
 */
export const BUN_MAX_REQUEST_BODY_SIZE = Number.MAX_SAFE_INTEGER;

export function bodyTooLarge(limit: number): GoondanError {
  return new GoondanError('E_SERVE_BODY_TOO_LARGE', `The request body is larger than ${limit} bytes.`);
}

/**
 * The JSON object of a POST body, read up to `limit` bytes (checked on Content-Length first, then on the bytes as
 * they arrive, so a chunked upload cannot get past it). Only `application/json` is taken: a browser must ask (CORS
 * preflight) before sending it, so a web page cannot post to a server on loopback behind a person's back.
 */
export async function readJsonBody(request: Request, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) throw badRequest('POST needs Content-Type: application/json.');
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw bodyTooLarge(limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw bodyTooLarge(limit);
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (thrown) {
    throw badRequest(`The body is not valid JSON: ${(thrown as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('The body must be a JSON object.');
  }
  // Nothing the API takes nests deeper; a body that does would fail later, where it is stored or copied (after a
  // 202 said it was accepted), by running out of stack.
  if (nestedDeeperThan(parsed, MAX_BODY_DEPTH)) {
    throw badRequest(`The body nests deeper than ${MAX_BODY_DEPTH} levels of arrays and objects.`);
  }
  return parsed as Record<string, unknown>;
}

/** How deep a request body's arrays and objects may nest. */
export const MAX_BODY_DEPTH = 256;

/** Whether `value` nests more than `limit` levels; walks without recursion, so any depth is safe to check. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current as object);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Throws E_SERVE_BAD_REQUEST for a field of `body` the endpoint does not take, with the one most likely meant: a
 * misspelt field (`usrId`, `resaon`, `in` for `inMs`) would otherwise be ignored, and the request do something else.
 */
export function refuseUnknownFields(body: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of Object.keys(body)) {
    if (fields.includes(field)) continue;
    const meant = closestName(field, fields);
    throw badRequest(
      `'${field.slice(0, 64)}' is not a field of this endpoint${meant ? ` (did you mean '${meant}'?)` : ''}; it takes ${fields.join(', ')}.`,
    );
  }
}
