/** A coded error from the server (the ToolResult-style body of every failed answer). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly suggestion = '',
  ) {
    super(message);
  }
}

const TOKEN_KEY = 'goondan-console-token';

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value: string | null): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(json: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const bearer = token();
  if (bearer) out.authorization = `Bearer ${bearer}`;
  if (json) out['content-type'] = 'application/json';
  return out;
}

async function failure(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { error?: { code: string; message: string; suggestion?: string } };
    if (body.error) return new ApiError(response.status, body.error.code, body.error.message, body.error.suggestion);
  } catch {}
  // Not an answer of gdn's (a proxy's error page, a server that went away mid-answer): no code of its own.
  return new ApiError(
    response.status,
    'E_CONSOLE_UNEXPECTED_RESPONSE',
    `The server answered ${response.status} without a coded error.`,
  );
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: headers(false), ...(signal ? { signal } : {}) });
  if (!response.ok) throw await failure(response);
  const body = (await response.json()) as T;
  // A view left while its answer was on the way must not draw over the next one.
  if (signal?.aborted) throw new DOMException('The view was left.', 'AbortError');
  return body;
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, { method: 'POST', headers: headers(true), body: JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/** Calls `onEvent` for each server-sent event of `path` until `signal` aborts (fetch, so the token can be sent). */
export async function streamEvents(path: string, signal: AbortSignal, onEvent: (name: string) => void): Promise<void> {
  const response = await fetch(path, { headers: headers(false), signal });
  if (!response.ok || !response.body) throw await failure(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: (.+)$/m.exec(block)?.[1];
      if (name) onEvent(name);
      end = buffer.indexOf('\n\n');
    }
  }
}
