import { isAbsolute, resolve } from 'node:path';
import { GoondanError, resolveValueSource, type ToolContext, type ValueSource } from '@goondan/core';
import { assistantBundleRoot } from '../store/assistant-bundle-root.ts';

/** How a DAV server is reached: Basic credentials, a bearer token, or a token from an OAuthApp. */
export type DavAuth =
  | { type: 'basic'; username: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'oauth'; oauthApp: string; scopes?: string[] };

/** Where calendars or contacts live: a CalDAV/CardDAV server, or one local file (ICS or vCard). */
export type PimBackend =
  | { type: 'dav'; url: string; auth: DavAuth; maxResponseBytes: number; timeoutMs: number }
  | { type: 'file'; path: string; maxResponseBytes: number };

export const DEFAULT_MAX_RESPONSE_BYTES = 5_000_000;
const DEFAULT_TIMEOUT_MS = 20_000;

type Kind = 'calendar' | 'contacts';
const serverBackend: Record<Kind, string> = { calendar: 'caldav', contacts: 'carddav' };
const notConfigured = { calendar: 'E_CALENDAR_NOT_CONFIGURED', contacts: 'E_CONTACTS_NOT_CONFIGURED' } as const;

function invalid(kind: Kind, message: string): GoondanError {
  return new GoondanError(notConfigured[kind], message, {
    suggestion: `Set the ${kind} Tool's config: backend: ${serverBackend[kind]} with server: { url, username, password } (password as valueFrom: { env: NAME }), or backend: file with file: <path>. docs/assistant.md#calendar-and-contacts`,
  });
}

function isValueSource(value: unknown): value is ValueSource {
  if (typeof value !== 'object' || value === null) return false;
  return 'value' in value || 'valueFrom' in value;
}

/**
 * A string given inline or as a ValueSource. Secrets (`secret: true`: password, token) are remembered as known
 * secrets either way, so every output sink masks them; a username given inline is not.
 */
function stringOrSource(
  kind: Kind,
  value: unknown,
  field: string,
  env: Record<string, string | undefined>,
  secret = true,
): string {
  if (typeof value === 'string' && value !== '') return secret ? resolveValueSource({ value }, env) : value;
  if (isValueSource(value)) return resolveValueSource(value, env);
  throw invalid(kind, `config.server.${field} must be a string or { valueFrom: { env: NAME } }.`);
}

function positive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * The backend the Tool's config names (`backend: caldav|carddav|file`). Secrets are read from their ValueSources
 * here, at call time, so a missing variable is a coded error of this call and never a crash at load.
 */
export function pimBackendOf(
  ctx: Pick<ToolContext, 'workdir' | 'config'>,
  kind: Kind,
  env: Record<string, string | undefined> = process.env,
): PimBackend {
  const config = ctx.config;
  const backend = config.backend;
  const maxResponseBytes = positive(config.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
  if (backend === undefined || backend === null || backend === 'none')
    throw invalid(kind, `No ${kind} backend is configured.`);
  if (backend === 'file') {
    const file = config.file;
    if (typeof file !== 'string' || file === '') throw invalid(kind, 'backend: file needs config.file (a path).');
    const path = isAbsolute(file) ? file : resolve(assistantBundleRoot(ctx), file);
    return { type: 'file', path, maxResponseBytes };
  }
  if (backend !== serverBackend[kind] && backend !== 'dav')
    throw invalid(kind, `Unknown ${kind} backend '${String(backend)}' (expected ${serverBackend[kind]} or file).`);
  const server = config.server;
  if (typeof server !== 'object' || server === null || Array.isArray(server))
    throw invalid(kind, `backend: ${serverBackend[kind]} needs config.server with a url.`);
  const fields = server as Record<string, unknown>;
  const url = fields.url;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url))
    throw invalid(kind, 'config.server.url must be an http(s) URL of the DAV server.');
  if (/^https?:\/\/[^/]*@/i.test(url))
    throw invalid(kind, 'config.server.url must not carry credentials; use server.username and server.password.');
  let auth: DavAuth;
  if (typeof fields.oauthApp === 'string') {
    const scopes = Array.isArray(fields.scopes) ? fields.scopes.filter((s): s is string => typeof s === 'string') : [];
    auth = { type: 'oauth', oauthApp: fields.oauthApp, ...(scopes.length > 0 ? { scopes } : {}) };
  } else if (fields.token !== undefined) {
    auth = { type: 'bearer', token: stringOrSource(kind, fields.token, 'token', env) };
  } else {
    auth = {
      type: 'basic',
      username: stringOrSource(kind, fields.username, 'username', env, false),
      password: stringOrSource(kind, fields.password, 'password', env),
    };
  }
  return { type: 'dav', url, auth, maxResponseBytes, timeoutMs: positive(config.timeoutMs, DEFAULT_TIMEOUT_MS) };
}
