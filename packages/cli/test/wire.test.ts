// What goes over the wire to a real OpenAI-compatible endpoint: the catalog, the prompt and every tool result.
import { afterAll, describe, expect, test } from 'bun:test';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import {
  agentBundle,
  type ChatMessage,
  type ChatRequestBody,
  chatBodies,
  cleanupTempDirs,
  cliEnv,
  gdn,
  gdnJson,
  mainTs,
  serverModel,
} from './helpers.ts';

afterAll(cleanupTempDirs);

interface CatalogItem {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

interface WireToolResult {
  status: string;
  output?: unknown;
  error?: { code: string; message: string; suggestion: string; helpUrl: string };
}

describe('gdn run against a local OpenAI-compatible server', () => {
  test('the model sees exactly the catalog, the system prompt and the user text; every tool result, errors included, goes back', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        {
          text: 'Let me try four things.',
          toolCalls: [
            { id: 'call_valid', name: 'calc__add', arguments: '{"a":2,"b":3}' },
            { id: 'call_outside', name: 'secret__peek', arguments: '{}' },
            { id: 'call_badargs', name: 'calc__add', arguments: '{"a":"two"}' },
            { id: 'call_throws', name: 'calc__boom', arguments: '{"reason":"on purpose"}' },
          ],
        },
        { text: 'All four calls came back.' },
      ],
    });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const { json: listed } = await gdnJson<{ tools: CatalogItem[] }>(['tools', 'list', '--json', '--bundle', bundle]);

      const result = await gdn(['run', '--bundle', bundle, '--input', 'Please add 2 and 3, and try the others.']);
      expect(result.stderr).not.toContain('[error]');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('Let me try four things.\nAll four calls came back.\n');
      for (const line of [
        /↳ calc__add ok (?:\d+ms|[\d.]+s)/,
        /↳ secret__peek error E_TOOL_NOT_IN_CATALOG [^\n]*(?:\d+ms|[\d.]+s)/,
        /↳ calc__add error E_TOOL_INVALID_ARGS [^\n]*(?:\d+ms|[\d.]+s)/,
        /↳ calc__boom error E_TOOL kaboom[^\n]*(?:\d+ms|[\d.]+s)/,
      ])
        expect(result.stderr).toMatch(line);

      const bodies = chatBodies(server.requests);
      expect(bodies).toHaveLength(2);
      const [first, second] = bodies as [ChatRequestBody, ChatRequestBody];

      // Request 1: tools are the catalog, in order, names/descriptions/schemas unchanged.
      const expectedTools = listed.tools.map((item) => ({
        type: 'function',
        function: {
          name: item.name,
          ...(item.description === undefined ? {} : { description: item.description }),
          parameters: item.parameters ?? { type: 'object', properties: {} },
        },
      }));
      expect(first.tools).toEqual(expectedTools);
      expect(first.tools!.map((tool) => tool.function.name)).toEqual(listed.tools.map((item) => item.name));
      // Byte for byte, key order included: nothing rewrote the schemas on the way.
      for (const [index, tool] of first.tools!.entries())
        expect(JSON.stringify(tool.function.parameters)).toBe(JSON.stringify(listed.tools[index]!.parameters));
      expect(first.tools!.map((tool) => tool.function.name)).not.toContain('secret__peek');
      expect(first.model).toBe('test-model');
      expect(first.messages).toEqual([
        { role: 'system', content: 'You are the CLI test agent. Use tools when asked.' },
        { role: 'user', content: 'Please add 2 and 3, and try the others.' },
      ]);
      expect(server.requests[0]!.hasAuthorization).toBe(true);

      // Request 2: the assistant's calls as made, then one tool message per call, in call order.
      expect(second.tools).toEqual(first.tools);
      expect(second.messages.slice(0, 2)).toEqual(first.messages);
      const assistant = second.messages[2] as ChatMessage;
      expect(assistant.role).toBe('assistant');
      expect(assistant.content).toBe('Let me try four things.');
      expect(assistant.tool_calls!.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
        ['call_valid', 'calc__add', '{"a":2,"b":3}'],
        ['call_outside', 'secret__peek', '{}'],
        ['call_badargs', 'calc__add', '{"a":"two"}'],
        ['call_throws', 'calc__boom', '{"reason":"on purpose"}'],
      ]);
      const toolMessages = second.messages.slice(3);
      expect(toolMessages.map((message) => [message.role, message.tool_call_id])).toEqual([
        ['tool', 'call_valid'],
        ['tool', 'call_outside'],
        ['tool', 'call_badargs'],
        ['tool', 'call_throws'],
      ]);
      const results = toolMessages.map((message) => JSON.parse(message.content as string) as WireToolResult);
      expect(results[0]).toEqual({ status: 'ok', output: { sum: 5 } });
      expect(results[1]!.status).toBe('error');
      expect(results[1]!.error).toMatchObject({
        code: 'E_TOOL_NOT_IN_CATALOG',
        helpUrl: 'docs/errors/E_TOOL_NOT_IN_CATALOG.md',
      });
      expect(results[1]!.error!.message).toContain("'secret__peek'");
      expect(results[2]!.error!.code).toBe('E_TOOL_INVALID_ARGS');
      expect(results[2]!.error!.message).toContain('must be integer');
      expect(results[2]!.error!.message).toContain('b: is required');
      expect(results[3]!.error).toMatchObject({ code: 'E_TOOL', message: 'kaboom: on purpose' });
      for (const failed of results.slice(1)) expect(failed.error!.suggestion.length).toBeGreaterThan(0);
      // The secret tool's handler never ran: its output appears nowhere.
      expect(JSON.stringify(second)).not.toContain('should never be reachable');
    } finally {
      await server.close();
    }
  });

  test('the SDK asks for a stream (stream: true, usage included) and the server answers with SSE', async () => {
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'Streamed hello.' }] });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const { result, json } = await gdnJson(['run', '--bundle', bundle, '--input', 'hi', '--json']);
      expect(result.exitCode).toBe(0);
      expect(json.text).toBe('Streamed hello.');
      const [body] = chatBodies(server.requests);
      expect(body!.stream).toBe(true);
      expect(body!.stream_options).toEqual({ include_usage: true });
      // The usage the server streamed in its last chunk is what the turn reports.
      expect((json.usage as { outputTokens: number }).outputTokens).toBe(Math.ceil('Streamed hello.'.length / 4));
    } finally {
      await server.close();
    }
  });

  test('gdn chat prints the reply as it streams, before the model has finished', async () => {
    // A server that streams the first piece, then holds the response open until the test has seen it printed.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const bodies: ChatRequestBody[] = [];
    const encoder = new TextEncoder();
    const chunk = (delta: object, finish: string | null = null) =>
      encoder.encode(
        `data: ${JSON.stringify({
          id: 'chatcmpl-stream',
          object: 'chat.completion.chunk',
          created: 0,
          model: 'test-model',
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`,
      );
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        bodies.push((await request.json()) as ChatRequestBody);
        const stream = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(chunk({ role: 'assistant', content: '' }));
            controller.enqueue(chunk({ content: 'First half, ' }));
            await released;
            controller.enqueue(chunk({ content: 'second half.' }));
            controller.enqueue(chunk({}, 'stop'));
            controller.enqueue(encoder.encode('data: [DONE]\n\n'));
            controller.close();
          },
        });
        return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
      },
    });
    try {
      const bundle = await agentBundle(serverModel(`http://127.0.0.1:${server.port}/v1`));
      const proc = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
        env: cliEnv(),
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
      });
      proc.stdin.write('stream please\n');
      proc.stdin.flush();
      let stdout = '';
      const decoder = new TextDecoder();
      const reader = proc.stdout.getReader();
      const deadline = Date.now() + 30_000;
      while (!stdout.includes('First half, ')) {
        const { value, done } = await Promise.race([
          reader.read(),
          Bun.sleep(Math.max(0, deadline - Date.now())).then(() => ({ value: undefined, done: true })),
        ]);
        if (done) break;
        stdout += decoder.decode(value, { stream: true });
      }
      expect(stdout).toBe('helper> First half, ');
      release();
      proc.stdin.write('/exit\n');
      proc.stdin.end();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        stdout += decoder.decode(value, { stream: true });
      }
      await proc.exited;
      expect(proc.exitCode).toBe(0);
      expect(stdout).toBe('helper> First half, second half.\n');
      expect(bodies).toHaveLength(1);
      expect(bodies[0]!.stream).toBe(true);
    } finally {
      release();
      server.stop(true);
    }
  });
});
