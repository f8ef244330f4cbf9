import { GoondanError, helpUrlFor, toToolError } from '@goondan/core';

/** HTTP status of each code the API answers with; anything else is a failure of the server (500). */
const statusOf: Record<string, number> = {
  E_SERVE_BAD_REQUEST: 400,
  E_INSTANCE_KEY_INVALID: 400,
  E_SCHEDULE_INVALID: 400,
  E_SCHEDULE_IN_PAST: 400,
  E_SCHEDULE_TIME_ZONE: 400,
  E_SERVE_UNAUTHORIZED: 401,
  E_SERVE_ROUTE_NOT_FOUND: 404,
  E_AGENT_UNKNOWN: 404,
  E_AGENT_NOT_CALLABLE: 404,
  E_INSTANCE_NOT_FOUND: 404,
  E_APPROVAL_NOT_FOUND: 404,
  E_CONSOLE_TRACE_NOT_FOUND: 404,
  E_SCHEDULE_NOT_FOUND: 404,
  E_SERVE_BODY_TOO_LARGE: 413,
  E_INSTANCE_BUSY: 409,
  E_APPROVAL_AMBIGUOUS: 409,
  E_AGENT_SHUTTING_DOWN: 503,
  E_AGENT_RUNTIME_UNAVAILABLE: 503,
  E_AGENT_CRASHED: 502,
  E_AGENT_REQUEST_TIMEOUT: 504,
};

/**
 * The body of every error answer: ToolResult-style coded JSON, with OpenAI's `type` (OpenAI clients read
 * `error.message`, `error.code` and `error.type`).
 */
export interface ApiErrorBody {
  error: { code: string; type: string; message: string; suggestion: string; helpUrl: string };
}

export function apiErrorBody(thrown: unknown): ApiErrorBody {
  const error = toToolError(thrown, { fallbackCode: 'E_TOOL' });
  const code = error.code ?? 'E_TOOL';
  return {
    error: {
      code,
      type: errorTypeFor(httpStatusFor(code)),
      message: error.message,
      suggestion: error.suggestion ?? '',
      helpUrl: error.helpUrl ?? helpUrlFor(code),
    },
  };
}

/** OpenAI's error `type` for a status: what its client libraries and apps switch on. */
export function errorTypeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  return status < 500 ? 'invalid_request_error' : 'server_error';
}

export function httpStatusFor(code: string): number {
  return statusOf[code] ?? 500;
}

/** Turns anything thrown by a handler into its coded JSON answer, with the status its code maps to. */
export function apiErrorResponse(
  thrown: unknown,
  options: { headers?: Record<string, string>; status?: number } = {},
): Response {
  const body = apiErrorBody(thrown);
  const status = options.status ?? (thrown instanceof GoondanError ? httpStatusFor(body.error.code) : 500);
  // The type goes with the status answered (a refused Origin is E_SERVE_UNAUTHORIZED with 403, not its usual 401).
  body.error.type = errorTypeFor(status);
  return Response.json(body, { status, headers: options.headers ?? {} });
}

/** `new GoondanError('E_SERVE_BAD_REQUEST', message)`, the error of most bad inputs. */
export function badRequest(message: string): GoondanError {
  return new GoondanError('E_SERVE_BAD_REQUEST', message);
}
