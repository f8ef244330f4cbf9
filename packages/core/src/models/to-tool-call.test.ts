import { afterAll, describe, expect, test } from 'bun:test';
import type { LanguageModel } from 'ai';
import { InvalidToolInputError, jsonSchema, NoSuchToolError, tool } from 'ai';
import { testScope } from '../tools/test-support.ts';
import { ToolCatalog } from '../tools/tool-catalog.ts';
import { ToolExecutor } from '../tools/tool-executor.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import type { ToolCatalogItem } from '../types.ts';
import { createLanguageModel } from './create-language-model.ts';
import { startOpenAICompatibleServer, testServerModel } from './openai-compatible-test-server.ts';
import { createScriptedModel } from './scripted-model.ts';
import { streamModelStep } from './stream-model-step.ts';
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
  ['openai-compatible over HTTP', () => createLanguageModel(testServerModel(server.url))],
];

/** One model call the way a step makes it (the AI SDK parses the calls). */
async function callModel(model: LanguageModel) {
  return await streamModelStep({
    model: model as Parameters<typeof streamModelStep>[0]['model'],
    messages: [{ role: 'user', content: 'go' }],
    tools,
    settings: { maxRetries: 0 },
    abortSignal: new AbortController().signal,
  });
}

describe.each(models)('how a step sees bad tool calls (%s)', (_label, makeModel) => {
  test('unknown names and unparsable JSON are invalid dynamic calls; schema violations pass unchecked', async () => {
    const result = await callModel(makeModel());
    const calls = result.toolCalls;
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

    // The response is one assistant message with every call (`{}` for the input that did not parse); no results:
    // our executor answers each call, the invalid ones too.
    expect(result.messages.map((message) => message.role)).toEqual(['assistant']);
    const parts = result.messages[0]!.content as { type: string; toolCallId: string; input: unknown }[];
    expect(parts.map((part) => [part.type, part.toolCallId])).toEqual(sent.map((call) => ['tool-call', call.id]));
    expect(parts.find((part) => part.toolCallId === 'c_broken')?.input).toEqual({});
  });

  test('toToolCall keeps the raw name and input, so our executor answers with our codes', async () => {
    const ours = (await callModel(makeModel())).toolCalls.map(toToolCall);
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
