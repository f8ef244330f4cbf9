import type { ToolContext, ToolHandler } from '@goondan/core';
import { type GuardedRequest, type GuardedResponse, guardedRequest } from './guarded-request.ts';

export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
export const MAX_HTTP_TIMEOUT_MS = 120_000;
export const DEFAULT_RESPONSE_BYTES = 1_000_000;
export const MAX_RESPONSE_BYTES = 10_000_000;

interface GetInput {
  url: string;
  headers?: Record<string, string>;
  maxBytes?: number;
  timeoutMs?: number;
}

interface PostInput extends GetInput {
  body?: unknown;
}

function bounded(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(1, Math.floor(value)), max);
}

function headersOf(input: GetInput): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) headers[name] = String(value);
  return headers;
}

function send(ctx: ToolContext, input: GetInput, request: GuardedRequest): Promise<GuardedResponse> {
  return guardedRequest(
    request,
    { allowPrivateNetwork: ctx.config.allowPrivateNetwork === true },
    {
      maxBytes: bounded(input.maxBytes, DEFAULT_RESPONSE_BYTES, MAX_RESPONSE_BYTES),
      timeoutMs: bounded(input.timeoutMs, DEFAULT_HTTP_TIMEOUT_MS, MAX_HTTP_TIMEOUT_MS),
      signal: ctx.signal,
    },
  );
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

async function get(ctx: ToolContext, input: GetInput): Promise<GuardedResponse> {
  return send(ctx, input, { method: 'GET', url: input.url, headers: headersOf(input) });
}

/** A string body is sent as text; anything else (object, array, number…) as JSON. */
async function post(ctx: ToolContext, input: PostInput): Promise<GuardedResponse> {
  const headers = headersOf(input);
  let body: Uint8Array | undefined;
  if (input.body !== undefined) {
    const isText = typeof input.body === 'string';
    body = new TextEncoder().encode(isText ? (input.body as string) : JSON.stringify(input.body));
    if (!hasHeader(headers, 'content-type')) {
      headers['content-type'] = isText ? 'text/plain; charset=utf-8' : 'application/json';
    }
  }
  return send(ctx, input, { method: 'POST', url: input.url, headers, body });
}

export const handlers: Record<string, ToolHandler> = { get, post };
