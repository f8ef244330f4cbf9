import type { ModelResource, ModelResourceSpec } from '../config/resources.ts';
import type { JsonObject } from '../types.ts';

/** One scripted answer of the test server, used by the next POST /v1/chat/completions. */
export interface ServerResponseScript {
  text?: string;
  toolCalls?: { name: string; arguments: string; id?: string }[];
  /** HTTP status; 400 or more answers `errorBody` (or a generic OpenAI-style error) instead of a completion. */
  status?: number;
  errorBody?: object;
  /** Headers of an error answer (e.g. `retry-after-ms`). */
  errorHeaders?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Stream only this many chunks of the answer, then keep the stream open, sending nothing, until the server closes. */
  stallAfterChunks?: number;
}

/** A request the server received. The authorization header's value is never kept, only whether it was sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Parsed JSON body, or null when there was none or it was not JSON. */
  body: unknown;
  headers: Record<string, string>;
  hasAuthorization: boolean;
}

/** A Model resource (`main`, model `test-model`, a test key) talking to the test server at `url`. */
export function testServerModel(
  url: string,
  options: { provider?: ModelResourceSpec['provider']; params?: JsonObject } = {},
): ModelResource {
  const { provider = 'openai-compatible', params } = options;
  return {
    apiVersion: 'goondan.ai/v1',
    kind: 'Model',
    metadata: { name: 'main' },
    spec: { provider, model: 'test-model', baseURL: url, apiKey: { value: 'test-key' }, ...(params ? { params } : {}) },
    location: { file: 'goondan.yaml', line: 1, column: 1, baseDir: '/tmp' },
  };
}

export interface OpenAICompatibleTestServer {
  /** Base URL ending in /v1, for a Model's spec.baseURL. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

interface ChatBody {
  model?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

type ToolCallScript = NonNullable<ServerResponseScript['toolCalls']>[number];

const encoder = new TextEncoder();

function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

function errorJson(status: number, message: string, type: string): Response {
  return json({ error: { message, type, param: null, code: null } }, status);
}

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** Up to `count` pieces, cut on code points. */
function split(text: string, count: number): string[] {
  const codePoints = Array.from(text);
  const size = Math.max(1, Math.ceil(codePoints.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < codePoints.length; start += size)
    pieces.push(codePoints.slice(start, start + size).join(''));
  return pieces;
}

function usage(body: unknown, script: ServerResponseScript) {
  const prompt_tokens = Math.ceil(JSON.stringify(body ?? '').length / 4);
  const output = (script.text ?? '') + (script.toolCalls ?? []).map((call) => call.arguments).join('');
  const completion_tokens = Math.ceil(output.length / 4);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function toolCallId(call: ToolCallScript, requestNumber: number, index: number): string {
  return call.id ?? `call_${requestNumber}_${index}`;
}

function completion(script: ServerResponseScript, body: ChatBody, requestNumber: number, model: string) {
  const toolCalls = script.toolCalls ?? [];
  return {
    id: `chatcmpl-test-${requestNumber}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: script.text ?? null,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call, index) => ({
                  id: toolCallId(call, requestNumber, index),
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: usage(body, script),
  };
}

/** The chat.completion.chunk sequence OpenAI streams: role, content pieces, tool call pieces, finish, usage. */
function chunks(script: ServerResponseScript, body: ChatBody, requestNumber: number, model: string): object[] {
  const includeUsage = body.stream_options?.include_usage === true;
  const base = {
    id: `chatcmpl-test-${requestNumber}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    ...(includeUsage ? { usage: null } : {}),
  };
  const chunk = (delta: object, finish_reason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  });
  const toolCalls = script.toolCalls ?? [];
  const list: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of split(script.text ?? '', 3)) list.push(chunk({ content: piece }));
  toolCalls.forEach((call, index) => {
    const id = toolCallId(call, requestNumber, index);
    list.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of split(call.arguments, 3))
      list.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  list.push(chunk({}, toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  if (includeUsage) list.push({ ...base, choices: [], usage: usage(body, script) });
  return list;
}

function sse(events: object[], stallAfter?: number): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events.slice(0, stallAfter))
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
      if (stallAfter !== undefined) return;
      controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      controller.close();
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}

/**
 * A local HTTP server speaking the OpenAI Chat Completions wire format, so tests run the real provider code
 * (`openai` and `openai-compatible` Models with `baseURL: server.url`) without a network or a key. Each
 * POST /v1/chat/completions plays the next response in order, streaming (SSE chunks, then `data: [DONE]`) or not
 * as the request asks; when they run out it answers 500 saying so. GET /v1/models lists the model. Every request is
 * recorded in `requests`. It is a test double, not a model: it never reads the prompt. Note the AI SDK retries
 * 429/5xx answers (maxRetries, 2 by default), and each retry takes the next scripted response.
 *
 * @example
 * const server = await startOpenAICompatibleServer({ responses: [{ text: 'Hello!' }] });
 * // Model spec: { provider: openai-compatible, model: test-model, baseURL: server.url }
 * await server.close();
 */
export async function startOpenAICompatibleServer(options: {
  responses: ServerResponseScript[];
  /** The id GET /v1/models lists and completions report; default 'test-model'. */
  model?: string;
}): Promise<OpenAICompatibleTestServer> {
  const responses = options.responses;
  const model = options.model ?? 'test-model';
  const requests: RecordedRequest[] = [];
  let completions = 0;

  async function record(request: Request, path: string): Promise<RecordedRequest> {
    const text = await request.text();
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = null;
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      if (key !== 'authorization') headers[key] = value;
    });
    const recorded = {
      method: request.method,
      path,
      body,
      headers,
      hasAuthorization: request.headers.has('authorization'),
    };
    requests.push(recorded);
    return recorded;
  }

  async function chatCompletions(recorded: RecordedRequest): Promise<Response> {
    if (typeof recorded.body !== 'object' || recorded.body === null) {
      return errorJson(400, 'The request body must be a JSON object.', 'invalid_request_error');
    }
    const body = recorded.body as ChatBody;
    const requestNumber = ++completions;
    const script = responses[requestNumber - 1];
    if (script === undefined) {
      return errorJson(
        500,
        `The test server has no scripted response left: ${responses.length} were given and this is request ${requestNumber}.`,
        'server_error',
      );
    }
    await delay(script.delayMs ?? 0);
    const status = script.status ?? 200;
    if (status >= 400) {
      return Response.json(
        script.errorBody ?? { error: { message: `Scripted error (status ${status}).`, type: 'server_error' } },
        { status, ...(script.errorHeaders ? { headers: script.errorHeaders } : {}) },
      );
    }
    const answerModel = typeof body.model === 'string' ? body.model : model;
    if (body.stream === true) return sse(chunks(script, body, requestNumber, answerModel), script.stallAfterChunks);
    return json(completion(script, body, requestNumber, answerModel), status);
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const recorded = await record(request, path);
      if (request.method === 'POST' && path === '/v1/chat/completions') return chatCompletions(recorded);
      if (request.method === 'GET' && path === '/v1/models') {
        return json({ object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'goondan-test' }] });
      }
      return errorJson(404, `The test server does not serve ${request.method} ${path}.`, 'invalid_request_error');
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    close: () => server.stop(true),
  };
}
