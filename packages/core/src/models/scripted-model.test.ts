import { describe, expect, test } from 'bun:test';
import { APICallError } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { createScriptedModel } from './scripted-model.ts';

const greetSchema = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
  additionalProperties: false,
} as const;
const tools = { greet__hello: tool({ description: 'Say hello', inputSchema: jsonSchema(greetSchema) }) };

describe('createScriptedModel through the real AI SDK', () => {
  test('streams a text step in several deltas and finishes with stop', async () => {
    const model = createScriptedModel([{ text: 'Hello there, Ada!' }]);
    const result = streamText({ model, prompt: 'Say hello' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello there, Ada!');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  test('returns tool calls with their names and raw args, finishing with tool-calls', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'greet__hello', args: { name: 'Ada' }, id: 'call_a' },
          { name: 'greet__hello', args: { name: 'Bob' } },
        ],
      },
    ]);
    const result = streamText({ model, prompt: 'Greet Ada and Bob', tools });
    const inputDeltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'tool-input-delta') inputDeltas.push(part.delta);
    const calls = await result.toolCalls;
    expect(calls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ['call_a', 'greet__hello', { name: 'Ada' }],
      ['call_1_1', 'greet__hello', { name: 'Bob' }],
    ]);
    expect(inputDeltas.join('')).toBe('{"name":"Ada"}{"name":"Bob"}');
    expect(await result.finishReason).toBe('tool-calls');
  });

  test('doGenerate hands the SDK each tool input as the JSON string given, broken or not', async () => {
    const model = createScriptedModel([{ text: 'ok', toolCalls: [{ name: 'x__y', args: '{"broken', id: 'c1' }] }]);
    const result = await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(result.content).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'x__y', input: '{"broken' },
    ]);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_calls' });
  });

  test('records the prompt, system prompt, tools offered and settings of every call', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'greet__hello', args: { name: 'Ada' }, id: 'c1' }] },
      { text: 'Done.' },
    ]);
    const first = await generateText({
      model,
      instructions: 'You are terse.',
      prompt: 'Greet Ada',
      tools,
      temperature: 0.2,
    });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Greet Ada' },
      ...first.response.messages,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'greet__hello',
            output: { type: 'json', value: { said: 'hi Ada' } },
          },
        ],
      },
    ];
    const second = await generateText({ model, instructions: 'You are terse.', messages, tools });
    expect(second.text).toBe('Done.');

    expect(model.calls).toHaveLength(2);
    const [call1, call2] = model.calls;
    expect(call1?.mode).toBe('generate');
    expect(call1?.toolNames).toEqual(['greet__hello']);
    expect(call1?.tools[0]?.inputSchema).toEqual(greetSchema);
    expect(call1?.tools[0]?.description).toBe('Say hello');
    expect(call1?.prompt[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(call1?.settings.temperature).toBe(0.2);
    const toolMessage = call2?.prompt.find((message) => message.role === 'tool');
    expect(toolMessage?.content[0]).toMatchObject({
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'greet__hello',
      output: { type: 'json', value: { said: 'hi Ada' } },
    });
  });

  test('plays steps in order and, once they run out, answers that the script has ended', async () => {
    const model = createScriptedModel([{ text: 'one' }, { text: 'two' }]);
    expect((await generateText({ model, prompt: 'a' })).text).toBe('one');
    expect(model.remainingSteps).toBe(1);
    expect((await generateText({ model, prompt: 'b' })).text).toBe('two');
    const third = await generateText({ model, prompt: 'c' });
    expect(third.text).toContain('script has ended');
    expect(model.calls.map((call) => call.step)).toEqual([0, 1, -1]);
  });

  test('keepCalls bounds the record to the latest calls; call numbers still count every call', async () => {
    const model = createScriptedModel([{ text: 'one' }], { keepCalls: 2 });
    for (const prompt of ['a', 'b', 'c', 'd']) await generateText({ model, prompt });
    expect(model.calls.map((call) => call.prompt.at(-1)?.content)).toEqual([
      [{ type: 'text', text: 'c' }],
      [{ type: 'text', text: 'd' }],
    ]);
    expect(model.calls.map((call) => call.step)).toEqual([-1, -1]);
    const fifth = await generateText({ model, prompt: 'e' });
    expect(fifth.text).toContain('call 5 has nothing scripted');
    expect(fifth.response.id).toBe('scripted-5');
    const none = createScriptedModel([{ text: 'one' }], { keepCalls: 0 });
    expect((await generateText({ model: none, prompt: 'a' })).text).toBe('one');
    expect(none.calls).toEqual([]);
  });

  test('an error step fails like a provider: generateText throws an APICallError, streamText emits an error part', async () => {
    const model = createScriptedModel([{ error: 'rate limited' }, { error: 'overloaded' }]);
    const thrown = await generateText({ model, prompt: 'x' }).catch((error: unknown) => error);
    expect(APICallError.isInstance(thrown)).toBe(true);
    expect((thrown as APICallError).message).toBe('rate limited');
    expect(model.calls).toHaveLength(1); // not retried

    const errors: unknown[] = [];
    const result = streamText({ model, prompt: 'x', onError: ({ error }) => void errors.push(error) });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toContain('error');
    expect((errors[0] as Error).message).toBe('overloaded');
  });

  test('an abort during delayMs rejects with an AbortError at once', async () => {
    const model = createScriptedModel([{ text: 'late', delayMs: 5_000 }]);
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 20);
    const thrown = await model.doGenerate({ prompt: [], abortSignal: controller.signal }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((thrown as Error).name).toBe('AbortError');
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  test('streamText reports an abort during delayMs as an abort part', async () => {
    const model = createScriptedModel([{ text: 'late', delayMs: 5_000 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = streamText({ model, prompt: 'x', abortSignal: controller.signal });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toContain('abort');
    expect(types).not.toContain('text-delta');
  });
});
