import { afterAll, describe, expect, test } from 'bun:test';
import type { LanguageModel } from 'ai';
import { InvalidToolInputError, jsonSchema, NoSuchToolError, streamText, tool } from 'ai';
import { testScope } from '../tools/test-support.ts';
import { ToolCatalog } from '../tools/tool-catalog.ts';
import { ToolExecutor } from '../tools/tool-executor.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import type { ToolCatalogItem } from '../types.ts';
import { createLanguageModel } from './create-language-model.ts';
import { startOpenAICompatibleServer } from './openai-compatible-test-server.ts';
import { createScriptedModel } from './scripted-model.ts';
import { toToolCall } from './to-tool-call.ts';

const greet: ToolCatalogItem = {
  name: 'greet__hello',
  description: 'Say hello',
  parameters: {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
    additionalProperties: false,
  },
};
const tools = { greet__hello: tool({ description: greet.description, inputSchema: jsonSchema(greet.parameters!) }) };

// The model's five calls: fine, unknown tool, unparsable JSON, schema-violating object, valid JSON that is no object.
const sent = [
  { name: 'greet__hello', args: '{"name":"Ada"}', id: 'c_ok' },
  { name: 'nope__x', args: '{"a":1}', id: 'c_unknown' },
  { name: 'greet__hello', args: '{"name": ', id: 'c_broken' },
  { name: 'greet__hello', args: '{"name":42,"extra":true}', id: 'c_schema' },
  { name: 'greet__hello', args: '[1,2]', id: 'c_array' },
];

const answer = { toolCalls: sent.map((call) => ({ name: call.name, arguments: call.args, id: call.id })) };
const server = await startOpenAICompatibleServer({ responses: [answer, answer] });
afterAll(() => server.close());

const models: [string, () => LanguageModel][] = [
  ['scripted model', () => createScriptedModel([{ toolCalls: sent }])],
  [
    'openai-compatible over HTTP',
    () =>
      createLanguageModel({
        apiVersion: 'goondan.ai/v1',
        kind: 'Model',
        metadata: { name: 'main' },
        spec: {
          provider: 'openai-compatible',
          model: 'test-model',
          baseURL: server.url,
          apiKey: { value: 'test-key' },
        },
        location: { file: 'goondan.yaml', line: 1, column: 1, baseDir: '/tmp' },
      }),
  ],
];

describe.each(models)('how streamText surfaces bad tool calls (%s)', (_label, makeModel) => {
  test('unknown names and unparsable JSON are invalid dynamic calls; schema violations pass unchecked', async () => {
    const result = streamText({ model: makeModel(), prompt: 'go', tools });
    const toolErrors: { toolCallId: string; error: unknown }[] = [];
    for await (const part of result.fullStream) if (part.type === 'tool-error') toolErrors.push(part);
    const calls = await result.toolCalls;
    const byId = new Map(calls.map((call) => [call.toolCallId, call]));

    // Unknown tool: invalid + dynamic, NoSuchToolError carrying the raw name; input parsed since it was valid JSON.
    const unknown = byId.get('c_unknown')!;
    expect([unknown.toolName, unknown.dynamic, unknown.invalid, unknown.input]).toEqual([
      'nope__x',
      true,
      true,
      { a: 1 },
    ]);
    expect(NoSuchToolError.isInstance(unknown.error)).toBe(true);
    expect((unknown.error as NoSuchToolError).availableTools).toEqual(['greet__hello']);

    // Unparsable: invalid + dynamic, input is the raw string, InvalidToolInputError.toolInput too.
    const broken = byId.get('c_broken')!;
    expect([broken.toolName, broken.dynamic, broken.invalid, broken.input]).toEqual([
      'greet__hello',
      true,
      true,
      '{"name": ',
    ]);
    expect(InvalidToolInputError.isInstance(broken.error)).toBe(true);
    expect((broken.error as InvalidToolInputError).toolInput).toBe('{"name": ');

    // jsonSchema() without validate does not check input: both arrive as ordinary (static, valid) calls.
    const plain = (id: string) => {
      const call = byId.get(id)!;
      return [call.invalid ?? false, call.dynamic ?? false, call.input];
    };
    expect(plain('c_schema')).toEqual([false, false, { name: 42, extra: true }]);
    expect(plain('c_array')).toEqual([false, false, [1, 2]]);
    expect(plain('c_ok')).toEqual([false, false, { name: 'Ada' }]);

    // Each invalid call is also followed by a 'tool-error' stream part (error as a string) ...
    expect(toolErrors.map((part) => part.toolCallId)).toEqual(['c_unknown', 'c_broken']);
    expect(typeof toolErrors[0]?.error).toBe('string');
    // ... and response.messages already holds an SDK-written tool message for them, and `{}` for the broken input.
    const messages = (await result.response).messages;
    const toolMessage = messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content.map((part) => part.type === 'tool-result' && part.output.type)).toEqual([
      'error-text',
      'error-text',
    ]);
    const assistant = messages.find((message) => message.role === 'assistant');
    const brokenPart = Array.isArray(assistant?.content)
      ? assistant.content.find((part) => part.type === 'tool-call' && part.toolCallId === 'c_broken')
      : undefined;
    expect(brokenPart).toMatchObject({ input: {} });
  });

  test('toToolCall keeps the raw name and input, so our executor answers with our codes', async () => {
    const result = streamText({ model: makeModel(), prompt: 'go', tools });
    const ours = (await result.toolCalls).map(toToolCall);
    expect(ours).toEqual([
      { id: 'c_ok', name: 'greet__hello', args: { name: 'Ada' } },
      { id: 'c_unknown', name: 'nope__x', args: { a: 1 } },
      { id: 'c_broken', name: 'greet__hello', args: '{"name": ' },
      { id: 'c_schema', name: 'greet__hello', args: { name: 42, extra: true } },
      { id: 'c_array', name: 'greet__hello', args: '[1,2]' },
    ]);

    const registry = new ToolRegistry();
    registry.register(greet, (_ctx, input: { name: string }) => `hello ${input.name}`);
    const executor = new ToolExecutor({ registry });
    const catalog = new ToolCatalog([greet]);
    const outcomes = await Promise.all(ours.map((call) => executor.execute(call, { catalog, scope: testScope() })));
    expect(outcomes.map((outcome) => outcome.error?.code ?? outcome.output)).toEqual([
      'hello Ada',
      'E_TOOL_NOT_IN_CATALOG',
      'E_TOOL_INVALID_ARGS',
      'E_TOOL_INVALID_ARGS',
      'E_TOOL_INVALID_ARGS',
    ]);
  });
});
