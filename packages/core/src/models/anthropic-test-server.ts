import type { RecordedRequest } from './openai-compatible-test-server.ts';

/** One scripted answer of the Anthropic test server, used by the next POST /v1/messages. */
export interface AnthropicResponseScript {
  /** A server-side tool search (Anthropic's tool-search tool) answered with these tool names. */
  toolSearch?: { query: string; references: string[] };
  toolCalls?: { name: string; input: object; id?: string }[];
  text?: string;
}

export interface AnthropicTestServer {
  /** Base URL ending in /v1, for a Model's spec.baseURL (or createAnthropic's baseURL). */
  url: string;
  /** Every request received; the x-api-key header's value is never kept. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Block = Record<string, unknown>;

/** The content blocks of one scripted answer, in Anthropic's Messages API shape. */
function blocks(script: AnthropicResponseScript, requestNumber: number): Block[] {
  const content: Block[] = [];
  if (script.toolSearch) {
    const id = `srvtoolu_${requestNumber}`;
    const { query, references } = script.toolSearch;
    content.push({ type: 'server_tool_use', id, name: 'tool_search_tool_bm25', input: { query } });
    content.push({
      type: 'tool_search_tool_result',
      tool_use_id: id,
      content: {
        type: 'tool_search_tool_search_result',
        tool_references: references.map((name) => ({ type: 'tool_reference', tool_name: name })),
      },
    });
  }
  if (script.text) content.push({ type: 'text', text: script.text });
  (script.toolCalls ?? []).forEach((call, index) => {
    content.push({
      type: 'tool_use',
      id: call.id ?? `toolu_${requestNumber}_${index}`,
      name: call.name,
      input: call.input,
    });
  });
  return content;
}

/** Server-sent events of a streamed answer: each block started, filled by one delta, stopped. */
function events(message: Block, content: Block[]): string {
  const lines: string[] = [];
  const send = (type: string, data: object) =>
    lines.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message: { ...message, content: [], stop_reason: null } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      send('content_block_start', { index, content_block: { ...block, input: {} } });
      const partial_json = JSON.stringify(block.input);
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    } else {
      send('content_block_start', { index, content_block: block });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  send('message_stop', {});
  return lines.join('');
}

/**
 * A local server speaking enough of Anthropic's Messages API (POST /v1/messages, plain and streamed) for tests:
 * it records each request body and answers with the next scripted response (text, client tool calls, and a
 * server-side tool search with its tool references). A request past the script gets a 500.
 *
 * @example
 * const server = await startAnthropicTestServer({ responses: [{ text: 'Hello!' }] });
 * // Model spec: { provider: anthropic, model: claude-test, baseURL: server.url, apiKey: test }
 */
export async function startAnthropicTestServer(options: {
  responses: AnthropicResponseScript[];
}): Promise<AnthropicTestServer> {
  const requests: RecordedRequest[] = [];
  let answered = 0;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const text = await request.text();
      let body: unknown = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {}
      const headers: Record<string, string> = {};
      request.headers.forEach((value, key) => {
        if (key !== 'x-api-key' && key !== 'authorization') headers[key] = value;
      });
      const hasAuthorization = request.headers.has('x-api-key') || request.headers.has('authorization');
      requests.push({ method: request.method, path, body, headers, hasAuthorization });
      if (request.method !== 'POST' || path !== '/v1/messages') {
        const error = { type: 'not_found_error', message: `The test server does not serve ${request.method} ${path}.` };
        return Response.json({ type: 'error', error }, { status: 404 });
      }
      answered += 1;
      const script = options.responses[answered - 1];
      if (!script) {
        const message = `The test server has no scripted response left: ${options.responses.length} were given and this is request ${answered}.`;
        return Response.json({ type: 'error', error: { type: 'api_error', message } }, { status: 500 });
      }
      const content = blocks(script, answered);
      const model = (body as { model?: unknown } | null)?.model;
      const message: Block = {
        id: `msg_${answered}`,
        type: 'message',
        role: 'assistant',
        model: typeof model === 'string' ? model : 'claude-test',
        content,
        stop_reason: script.toolCalls?.length ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      };
      if ((body as { stream?: unknown } | null)?.stream === true) {
        return new Response(events(message, content), { headers: { 'content-type': 'text/event-stream' } });
      }
      return Response.json(message);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, requests, close: () => server.stop(true) };
}
