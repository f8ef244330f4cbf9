import { APICallError, TypeValidationError } from '@ai-sdk/provider';
import type { ModelResource } from '../config/resources.ts';
import { redactSecrets } from '../permissions/redact-secrets.ts';
import type { JsonObject } from '../types.ts';

/** What a turn reports when its model call failed: the provider's words, and which Model, where, and what to try. */
export interface ModelCallFailure {
  code: string;
  message: string;
  suggestion?: string;
}

function lastErrorOf(thrown: unknown): unknown {
  const errors = (thrown as { errors?: unknown })?.errors;
  if (Array.isArray(errors) && errors.length > 0) return errors[errors.length - 1];
  return thrown;
}

/** The SDK's error for a part of the answer it could not read, if `error` is one (or wraps one). */
function unreadablePart(error: unknown): TypeValidationError | undefined {
  if (TypeValidationError.isInstance(error)) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return TypeValidationError.isInstance(cause) ? cause : undefined;
}

/**
 * One line for a part the adapter could not read, instead of the SDK's dump (the whole part as JSON, then the
 * validator's issues as a JSON array): the first issue with its path, how many more, and how the part began.
 */
function describeUnreadablePart(error: TypeValidationError): string {
  const issues = (error.cause as { issues?: { path?: unknown[]; message?: unknown }[] } | null)?.issues;
  const first = Array.isArray(issues) ? issues[0] : undefined;
  const what = first
    ? `${(first.path ?? []).map(String).join('.') || 'the part'}: ${String(first.message)}`
    : String((error.cause as Error | null)?.message ?? error.message).split('\n')[0];
  const more = Array.isArray(issues) && issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  const value = JSON.stringify(error.value) ?? String(error.value);
  const began = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return `the server sent a part of its answer the adapter cannot read, ${what}${more}; the part: ${began}`;
}

/** Whether the server was never reached: connection refused, unknown host, reset, timed out on connect. */
function unreachable(error: unknown): boolean {
  if (APICallError.isInstance(error) && error.statusCode !== undefined) return false;
  const text = `${(error as Error)?.message ?? ''} ${String((error as { cause?: { code?: unknown } })?.cause?.code ?? '')}`;
  return /ECONNREFUSED|ENOTFOUND|ECONNRESET|EAI_AGAIN|ETIMEDOUT|Unable to connect|Cannot connect|fetch failed/i.test(
    text,
  );
}

/**
 * The turn's error for a failed model call, naming the Model resource, the URL it calls and where it is declared,
 * with a suggestion: for a server that cannot be reached, whether it is running and spec.baseURL; for an HTTP
 * error, its status. `error` is the ToolError-shaped error the step made of `thrown`.
 */
export function describeModelCallFailure(options: {
  error: { code: string; message: string };
  thrown: unknown;
  resource: ModelResource | undefined;
}): ModelCallFailure {
  const failure = describe(options);
  // The URL and the provider's words may hold credentials (`user:password@`, `?api_key=`): this text is printed,
  // stored in the conversation and read by the model at the next turn.
  return redactSecrets(failure as unknown as JsonObject) as unknown as ModelCallFailure;
}

function describe(options: {
  error: { code: string; message: string };
  thrown: unknown;
  resource: ModelResource | undefined;
}): ModelCallFailure {
  const { error, resource } = options;
  if (!resource || resource.spec.provider === 'scripted' || error.code !== 'E_MODEL_CALL_FAILED') return error;
  const last = lastErrorOf(options.thrown);
  const { file, line, column } = resource.location;
  const url = resource.spec.baseURL ?? (APICallError.isInstance(last) ? last.url : undefined);
  const who = `Model '${resource.metadata.name}' (provider ${resource.spec.provider}${url ? `, ${url}` : ''}, declared at ${file}:${line}:${column})`;
  const status = APICallError.isInstance(last) ? last.statusCode : undefined;
  const unreadable = unreadablePart(last);
  if (unreadable) {
    return {
      code: error.code,
      message: `${who} failed: ${describeUnreadablePart(unreadable)}`,
      suggestion: `The server does not speak the ${resource.spec.provider} API exactly: check spec.provider and spec.baseURL of Model '${resource.metadata.name}' (a proxy or another kind of server answers there); see docs/providers.md.`,
    };
  }
  if (unreachable(last)) {
    // A hosted provider's own address (no baseURL): what fails is this machine's network, not a server to start.
    const hosted = resource.spec.baseURL === undefined && resource.spec.provider !== 'openai-compatible';
    const host = url ? URL.parse(url)?.host : undefined;
    return {
      code: error.code,
      message: `${who} could not reach its server: ${error.message}`,
      suggestion: hosted
        ? `Check this machine's connection to the ${resource.spec.provider} API${host ? ` (${host})` : ''}: DNS, a firewall, or a proxy the environment must name (HTTPS_PROXY); see docs/providers.md.`
        : `Is the model server running${url ? ` at ${url}` : ''}? Check spec.baseURL of Model '${resource.metadata.name}' (it usually ends in /v1); see docs/providers.md.`,
    };
  }
  return {
    code: error.code,
    message: `${who} failed${status ? ` with HTTP ${status}` : ''}: ${error.message}`,
    suggestion:
      status === 401 || status === 403
        ? 'Check the API key the Model uses (spec.apiKey or the provider variable); see docs/providers.md.'
        : status === 404
          ? `Check spec.model and spec.baseURL of Model '${resource.metadata.name}'; see docs/providers.md.`
          : 'Read the provider message above; see docs/providers.md for the Model settings.',
  };
}
