import { afterEach, describe, expect, test } from 'bun:test';
import { APICallError } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { createLanguageModel } from './create-language-model.ts';
import { modelCallSettings } from './model-call-settings.ts';
import {
  type OpenAICompatibleTestServer,
  type ServerResponseScript,
  startOpenAICompatibleServer,
  testServerModel,
} from './openai-compatible-test-server.ts';

const greetSchema = {
  type: 'object',
  properties: { name: { type: 'string', description: 'Who to greet' } },
  required: ['name'],
  additionalProperties: false,
};
const tools = { greet__hello: tool({ description: 'Say hello to someone', inputSchema: jsonSchema(greetSchema) }) };

let server: OpenAICompatibleTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(responses: ServerResponseScript[]): Promise<OpenAICompatibleTestServer> {
  server = await startOpenAICompatibleServer({ responses });
  return server;
}

interface ChatRequestBody {
  model: string;
  stream?: boolean;
  temperature?: number;
  max_tokens?: number;
  messages: { role: string; content: unknown; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: { type: string; function: { name: string; description?: string; parameters: unknown } }[];
  [key: string]: unknown;
}

const bodyOf = (index: number) => server?.requests[index]?.body as ChatRequestBody;

describe.each(['openai-compatible', 'openai'] as const)('provider %s against the test server', (provider) => {
  test('streams text in several deltas; the server saw the system prompt, a stream request and a key', async () => {
    const { url } = await start([{ text: 'Hello from the test server!' }]);
    const model = createLanguageModel(testServerModel(url, { provider }), { env: {} });
    const result = streamText({ model, instructions: 'You are terse.', prompt: 'Say hello' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello from the test server!');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);

    const request = server!.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.hasAuthorization).toBe(true);
    expect(request.headers.authorization).toBeUndefined();
    expect(bodyOf(0).stream).toBe(true);
    expect(bodyOf(0).model).toBe('test-model');
    expect(bodyOf(0).messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
  });

  test('tool calls come back with names and args; the server got the tools and, next call, the tool result', async () => {
    await start([
      { toolCalls: [{ name: 'greet__hello', arguments: '{"name":"Ada"}', id: 'call_ada' }] },
      { text: 'Greeted Ada.' },
    ]);
    const model = createLanguageModel(testServerModel(server!.url, { provider }), { env: {} });
    const first = streamText({ model, instructions: 'Be brief.', prompt: 'Greet Ada', tools });
    const calls = await first.toolCalls;
    expect(calls.map((call) => [call.toolCallId, call.toolName, call.input, call.invalid])).toEqual([
      ['call_ada', 'greet__hello', { name: 'Ada' }, undefined],
    ]);
    expect(await first.finishReason).toBe('tool-calls');
    expect(bodyOf(0).tools).toEqual([
      {
        type: 'function',
        function: { name: 'greet__hello', description: 'Say hello to someone', parameters: greetSchema },
      },
    ]);

    const messages: ModelMessage[] = [
      { role: 'user', content: 'Greet Ada' },
      ...(await first.response).messages,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_ada',
            toolName: 'greet__hello',
            output: { type: 'json', value: { greeted: 'Ada' } },
          },
        ],
      },
    ];
    const second = streamText({ model, instructions: 'Be brief.', messages, tools });
    expect(await second.text).toBe('Greeted Ada.');
    const sent = bodyOf(1).messages;
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(sent[2]?.tool_calls).toEqual([
      { id: 'call_ada', type: 'function', function: { name: 'greet__hello', arguments: '{"name":"Ada"}' } },
    ]);
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'call_ada', content: '{"greeted":"Ada"}' });
  });

  test('Model and Agent params reach the request body', async () => {
    await start([{ text: 'ok' }]);
    const resource = testServerModel(server!.url, { provider, params: { temperature: 0.3, maxTokens: 50, seed: 7 } });
    const model = createLanguageModel(resource, { env: {} });
    await generateText({
      model,
      prompt: 'x',
      ...modelCallSettings(resource, { temperature: 0.1, stopSequences: ['END'] }),
    });
    expect(bodyOf(0)).toMatchObject({ temperature: 0.1, max_tokens: 50, seed: 7, stop: ['END'] });
    expect(bodyOf(0).stream).toBeFalsy();
  });

  test('an error status surfaces as an APICallError with the server’s message', async () => {
    await start([{ status: 400, errorBody: { error: { message: 'model not found', type: 'invalid_request_error' } } }]);
    const model = createLanguageModel(testServerModel(server!.url, { provider }), { env: {} });
    const thrown = await generateText({ model, prompt: 'x', maxRetries: 0 }).catch((error: unknown) => error);
    expect(APICallError.isInstance(thrown)).toBe(true);
    expect((thrown as APICallError).statusCode).toBe(400);
    expect((thrown as APICallError).message).toBe('model not found');
  });
});

describe('startOpenAICompatibleServer', () => {
  test('unknown params of an openai-compatible Model go into the request body', async () => {
    await start([{ text: 'ok' }]);
    const resource = testServerModel(server!.url, {
      provider: 'openai-compatible',
      params: { min_p: 0.05, repetition_penalty: 1.1 },
    });
    const model = createLanguageModel(resource, { env: {} });
    await generateText({ model, prompt: 'x', ...modelCallSettings(resource) });
    expect(bodyOf(0)).toMatchObject({ min_p: 0.05, repetition_penalty: 1.1 });
  });

  test('sends the usage chunk only when stream_options.include_usage asks for it, then [DONE]', async () => {
    const { url } = await start([
      { text: 'abc', toolCalls: [{ name: 't__x', arguments: '{"a":1}' }] },
      { text: 'abc' },
    ]);
    const post = (body: object) =>
      fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify(body) }).then((response) =>
        response.text(),
      );
    const withUsage = await post({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [] });
    const events = withUsage.trim().split('\n\n');
    expect(events.at(-1)).toBe('data: [DONE]');
    const usage = JSON.parse(events.at(-2)!.slice('data: '.length));
    expect(usage.choices).toEqual([]);
    expect(usage.usage.total_tokens).toBeGreaterThan(0);
    const finish = JSON.parse(events.at(-3)!.slice('data: '.length));
    expect(finish.choices[0].finish_reason).toBe('tool_calls');
    const argumentPieces = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.slice('data: '.length)))
      .flatMap((chunk) => chunk.choices[0]?.delta?.tool_calls ?? [])
      .map((call: { function: { arguments: string } }) => call.function.arguments);
    expect(argumentPieces.join('')).toBe('{"a":1}');
    expect(argumentPieces.length).toBeGreaterThan(2);

    const withoutUsage = await post({ model: 'm', stream: true, messages: [] });
    expect(withoutUsage).not.toContain('"usage"');
  });

  test('answers 500 saying so when the scripted responses run out', async () => {
    const { url } = await start([]);
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{"messages":[]}' });
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'no scripted response left',
    );
  });

  test('lists the model at GET /v1/models, refuses other routes with 404, and records every request', async () => {
    const { url, requests } = await start([]);
    const models = (await (await fetch(`${url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((entry) => entry.id)).toEqual(['test-model']);
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
    await fetch(`${url}/models`, { headers: { authorization: 'Bearer secret-value' } });
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/models',
      'GET /v1/nothing',
      'GET /v1/models',
    ]);
    expect(requests[2]?.hasAuthorization).toBe(true);
    expect(JSON.stringify(requests)).not.toContain('secret-value');
  });

  test('delayMs holds the answer back', async () => {
    const { url } = await start([{ text: 'late', delayMs: 80 }]);
    const started = performance.now();
    await fetch(`${url}/chat/completions`, { method: 'POST', body: '{"messages":[]}' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
  });
});
