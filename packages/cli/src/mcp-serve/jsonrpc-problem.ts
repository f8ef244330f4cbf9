import {
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { kindOf } from './kind-of.ts';

type RequestId = string | number;

/** The id of what looks like a request (a method and a string or integer id); undefined otherwise. */
export function requestIdOf(value: unknown): RequestId | undefined {
  if (typeof value !== 'object' || value === null || !('method' in value) || !('id' in value)) return undefined;
  const { id } = value as { id: unknown };
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as RequestId) : undefined;
}

/** What is wrong with a JSON value that is not a JSON-RPC 2.0 message, and the error code that says so. */
export function problemOf(value: unknown): { code: number; problem: string } {
  const invalid = (problem: string) => ({ code: ErrorCode.InvalidRequest, problem });
  if (typeof value !== 'object' || value === null)
    return invalid(`a JSON-RPC message is an object, not ${kindOf(value)}`);
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') {
    return invalid(`jsonrpc is ${JSON.stringify(message.jsonrpc) ?? 'missing'}; only "2.0" is spoken`);
  }
  if ('id' in message && requestIdOf(message) === undefined && 'method' in message) {
    return invalid('the id must be a string or an integer');
  }
  if (typeof message.method === 'string' && 'params' in message) {
    const { params } = message;
    const invalidParams = (problem: string) => ({ code: ErrorCode.InvalidParams, problem });
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      return invalidParams(`params must be an object (got ${kindOf(params)})`);
    }
    // A valid JSON-RPC request whose params break MCP's one rule for every method: its _meta.
    const meta = (params as { _meta?: unknown })._meta;
    if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta))) {
      return invalidParams(`params._meta must be an object (got ${kindOf(meta)})`);
    }
    const token = (meta as { progressToken?: unknown } | undefined)?.progressToken;
    if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) {
      return invalidParams(`params._meta.progressToken must be a string or an integer (got ${kindOf(token)})`);
    }
  }
  return invalid('it is not a JSON-RPC request, notification or response (method, id, params; or id and result)');
}

/** The SDK's schemas of the requests it answers with its own handlers (tools/call is read by readToolCallParams). */
const requestSchemas = new Map<
  string,
  typeof PingRequestSchema | typeof InitializeRequestSchema | typeof ListToolsRequestSchema
>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
]);

/**
 * What is wrong, in one line, with the params of a JSON-RPC request the SDK checks with its schema before its handler
 * (`params.protocolVersion: expected string, received number`); null when nothing is, or the method is not one of
 * those. The SDK answers such a mistake -32603 Internal error with the schema's issues as lines of JSON; it is the
 * client's mistake: -32602 Invalid params.
 */
export function paramsProblemOf(message: unknown): string | null {
  const method = (message as { method?: unknown })?.method;
  const schema = typeof method === 'string' ? requestSchemas.get(method) : undefined;
  const checked = schema?.safeParse(message);
  if (!checked || checked.success) return null;
  const [first, ...others] = checked.error.issues;
  const where = (first?.path ?? [])
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
  const what = (first?.message ?? 'not valid').replace(/^Invalid input: /, '');
  return `${where || 'params'}: ${what}${others.length > 0 ? `; and ${others.length} more` : ''}`;
}

/** A JSON-RPC error answer to a message that could not be taken. */
export interface Refusal {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string };
}

/**
 * The errors for a parsed body (one message or a batch) that holds messages that are not JSON-RPC 2.0, with the codes
 * JSON-RPC gives them (-32600 Invalid Request, -32602 Invalid params) and the request's id when it can be read; null
 * when every message is one. (The SDK's HTTP transport answers all of these -32700 Parse error, id null.)
 */
export function refusalsOf(body: unknown): Refusal[] | null {
  const refuse = (id: RequestId | null, code: number, message: string): Refusal => ({
    jsonrpc: '2.0',
    id,
    error: { code, message },
  });
  if (Array.isArray(body) && body.length === 0) {
    return [refuse(null, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch')];
  }
  const refusals = (Array.isArray(body) ? body : [body]).flatMap((message) => {
    if (JSONRPCMessageSchema.safeParse(message).success) {
      const problem = paramsProblemOf(message);
      return problem
        ? [refuse(requestIdOf(message) ?? null, ErrorCode.InvalidParams, `Invalid params: ${problem}`)]
        : [];
    }
    const { code, problem } = problemOf(message);
    const label = code === ErrorCode.InvalidParams ? 'Invalid params' : 'Invalid Request';
    return [refuse(requestIdOf(message) ?? null, code, `${label}: ${problem}`)];
  });
  return refusals.length === 0 ? null : refusals;
}
