import { describe, expect, test } from 'bun:test';
import { APICallError, type LanguageModelV4, type LanguageModelV4Prompt } from '@ai-sdk/provider';
import { jsonSchema, MissingToolResultsError, type ModelMessage, type ToolSet, tool } from 'ai';
import { startAnthropicTestServer } from './anthropic-test-server.ts';
import { createLanguageModel } from './create-language-model.ts';
import { startOpenAICompatibleServer, testServerModel } from './openai-compatible-test-server.ts';
import { PromptCache } from './prompt-cache.ts';
import { createScriptedModel } from './scripted-model.ts';
import { type ModelStepRequest, streamModelStep } from './stream-model-step.ts';

const tools: ToolSet = {
  greet__hello: tool({
    description: 'Say hello',
    inputSchema: jsonSchema({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }),
  }),
};

const pixel = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

/** Conversation messages of every kind the SDK converts, in the order a conversation may hold them. */
function call(id: string, name = 'Ada'): ModelMessage {
  return {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'The user wants a greeting.' },
      { type: 'text', text: 'Greeting.' },
      {
        type: 'tool-call',
        toolCallId: id,
        toolName: 'greet__hello',
        input: { name },
        providerOptions: { test: { mark: id } },
      },
    ],
  };
}

function result(id: string, output: Extract<ModelMessage, { role: 'tool' }>['content'][number]): ModelMessage {
  return { role: 'tool', content: [{ ...output, toolCallId: id } as never] };
}

const turns: ModelMessage[][] = [
  [{ role: 'user', content: 'Hello there' }],
  [{ role: 'assistant', content: 'Hi! What can I do?' }],
  [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look at this, and greet Ada' },
        { type: 'file', data: pixel, mediaType: 'image/png' },
        { type: 'file', data: `data:text/plain;base64,${btoa('notes')}`, mediaType: 'text/plain', filename: 'n.txt' },
        { type: 'text', text: '' },
      ],
      providerOptions: { test: { cache: 'ephemeral' }, anthropic: { cacheControl: { type: 'ephemeral' } } },
    },
  ],
  [
    call('call_1'),
    result('call_1', {
      type: 'tool-result',
      toolCallId: '',
      toolName: 'greet__hello',
      output: { type: 'json', value: { said: 'Hello, Ada' } },
    }),
    // A second tool message after the first: the SDK joins the two (within the new messages).
    result('call_1', {
      type: 'tool-result',
      toolCallId: '',
      toolName: 'greet__hello',
      output: { type: 'text', value: 'again' },
      providerOptions: { test: { late: true } },
    }),
  ],
  [
    { role: 'assistant', content: [{ type: 'text', text: 'Said hello.' }] },
    call('call_2', 'Grace'),
    result('call_2', {
      type: 'tool-result',
      toolCallId: '',
      toolName: 'greet__hello',
      output: { type: 'error-text', value: 'E_TOOL_TIMEOUT: greet__hello took too long' },
    }),
  ],
  // A tool message right after a kept tool message: it cannot be converted apart from the last kept one.
  [
    result('call_2', {
      type: 'tool-result',
      toolCallId: '',
      toolName: 'greet__hello',
      output: { type: 'content', value: [{ type: 'text', text: 'retried' }] },
    }),
  ],
  [{ role: 'user', content: [{ type: 'text', text: 'Thanks' }] }],
];

async function step(model: LanguageModelV4, messages: ModelMessage[], extra: Partial<ModelStepRequest> = {}) {
  return streamModelStep({ model, messages, tools, abortSignal: new AbortController().signal, ...extra });
}

/** Grows one conversation turn by turn, asking a model with the cache and one without at each step. */
async function compareAlong(instructions: (index: number) => string | undefined) {
  const cached = createScriptedModel([]);
  const fresh = createScriptedModel([]);
  const cache = new PromptCache();
  const history: ModelMessage[] = [];
  for (const [index, added] of turns.entries()) {
    history.push(...added);
    const system = instructions(index);
    const extra = system ? { instructions: system } : {};
    await step(cached, history, { ...extra, promptCache: cache });
    await step(fresh, [...history], extra);
  }
  return { cached: cached.calls.map((c) => c.prompt), fresh: fresh.calls.map((c) => c.prompt) };
}

describe('PromptCache', () => {
  test('the model receives at every step exactly what the SDK makes of the whole conversation', async () => {
    const { cached, fresh } = await compareAlong(() => 'Be brief.');
    expect(cached).toHaveLength(turns.length);
    expect(cached).toEqual(fresh);
    // What it compares is the real conversion: the joined tool messages, the files, the empty text gone.
    const last = fresh.at(-1) as LanguageModelV4Prompt;
    expect(last[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(last.filter((message) => message.role === 'tool').map((message) => message.content.length)).toEqual([2, 2]);
    const files = last.flatMap((message) => (message.role === 'user' ? message.content : []));
    expect(files.map((part) => part.type)).toEqual(['text', 'text', 'file', 'file', 'text']);
  });

  test('instructions that change or come and go between steps are the ones of each call', async () => {
    const { cached, fresh } = await compareAlong((index) => (index % 3 === 0 ? undefined : `Rule ${index}.`));
    expect(cached).toEqual(fresh);
    expect(cached[1]![0]).toEqual({ role: 'system', content: 'Rule 1.' });
    expect(cached[3]![0]!.role).not.toBe('system');
  });

  test('keeps the converted messages: a step hands the SDK only the messages added since the last', async () => {
    const cache = new PromptCache();
    const model = createScriptedModel([]);
    const history: ModelMessage[] = [{ role: 'user', content: 'one' }];
    const first = cache.prepare(model, history);
    expect(first.messages).toBe(history);
    await step(first.model, first.messages);
    history.push({ role: 'assistant', content: 'two' }, { role: 'user', content: 'three' });
    const second = cache.prepare(model, history);
    expect(second.messages).toEqual([
      { role: 'assistant', content: 'two' },
      { role: 'user', content: 'three' },
    ]);
    await step(second.model, second.messages);
    expect(model.calls[1]!.prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    // The same objects as the first call received: converted once.
    expect(model.calls[1]!.prompt[0]).toBe(model.calls[0]!.prompt[0]!);
  });

  test('another array that begins with the same message objects goes on from the kept ones', async () => {
    const cache = new PromptCache();
    const model = createScriptedModel([]);
    const history: ModelMessage[] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
    ];
    await step(model, history, { promptCache: cache });
    // A step middleware's own list each step: the same objects, one of its own before the new user message.
    const block: ModelMessage = { role: 'user', content: 'a block of the middleware' };
    const next = [...history, block, { role: 'user', content: 'three' } as ModelMessage];
    const prepared = cache.prepare(model, next);
    expect(prepared.messages).toEqual(next.slice(2));
    await step(prepared.model, prepared.messages);
    const fresh = createScriptedModel([]);
    await step(fresh, next);
    expect(model.calls[1]!.prompt).toEqual(fresh.calls[0]!.prompt);
    expect(model.calls[1]!.prompt[0]).toBe(model.calls[0]!.prompt[0]!);
    // Rebuilt again with the same objects and one more: only that one is new.
    expect(cache.prepare(model, [...next, { role: 'assistant', content: 'four' }]).messages).toHaveLength(1);
  });

  test('starts over for messages that begin otherwise, a shorter list, another model, nothing new, or after clear()', async () => {
    const cache = new PromptCache();
    const model = createScriptedModel([]);
    const history: ModelMessage[] = [{ role: 'user', content: 'one' }];
    await step(model, history, { promptCache: cache });
    history.push({ role: 'assistant', content: 'two' });
    // Equal but other objects (a window that moved, another conversation): everything is converted.
    expect(cache.prepare(model, structuredClone(history)).messages).toHaveLength(2);
    const other = createScriptedModel([]);
    await step(model, history, { promptCache: cache });
    expect(cache.prepare(other, history).messages).toHaveLength(2);
    await step(model, history, { promptCache: cache });
    expect(cache.prepare(model, history).messages).toHaveLength(2);
    expect(cache.prepare(model, history.slice(0, 1)).messages).toHaveLength(1);
    await step(model, history, { promptCache: cache });
    history.push({ role: 'user', content: 'three' });
    expect(cache.prepare(model, history).messages).toHaveLength(1);
    cache.clear();
    expect(cache.prepare(model, history).messages).toHaveLength(3);
  });

  test('cleared while a call is on its way, the call still sends the whole prompt and nothing of it is kept', async () => {
    const cache = new PromptCache();
    const model = createScriptedModel([]);
    const history: ModelMessage[] = [{ role: 'user', content: 'one' }];
    await step(model, history, { promptCache: cache });
    history.push({ role: 'assistant', content: 'two' }, { role: 'user', content: 'three' });
    const prepared = cache.prepare(model, history);
    expect(prepared.messages).toHaveLength(2);
    cache.clear();
    await step(prepared.model, prepared.messages);
    expect(model.calls[1]!.prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    // The tail was not kept into the cleared cache: the next call converts everything again.
    expect(cache.prepare(model, history).messages).toBe(history);
  });

  test('a call left without its result is refused as the SDK refuses it, and nothing of it is kept', async () => {
    const cache = new PromptCache();
    const model = createScriptedModel([]);
    const history: ModelMessage[] = [{ role: 'user', content: 'greet Ada' }];
    await step(model, history, { promptCache: cache });
    history.push(call('call_9'), { role: 'user', content: 'and?' });
    const refused = await step(model, history, { promptCache: cache }).catch((error: unknown) => error);
    expect(MissingToolResultsError.isInstance(refused)).toBe(true);
    expect(model.calls).toHaveLength(1);
    // The same messages again are refused again: the first call's conversion was not kept as valid.
    const again = await step(model, history, { promptCache: cache }).catch((error: unknown) => error);
    expect(MissingToolResultsError.isInstance(again)).toBe(true);
  });

  test('a retried call sends the whole prompt at every attempt, and keeps the new messages once', async () => {
    const inner = createScriptedModel([]);
    let failures = 1;
    const flaky: LanguageModelV4 = {
      ...inner,
      async doStream(options) {
        if (failures-- > 0) {
          throw new APICallError({
            message: 'HTTP 503',
            url: 'http://127.0.0.1:9/v1',
            requestBodyValues: {},
            statusCode: 503,
            isRetryable: true,
            responseHeaders: { 'retry-after-ms': '0' },
          });
        }
        return inner.doStream(options);
      },
    };
    const cache = new PromptCache();
    const history: ModelMessage[] = [{ role: 'user', content: 'one' }];
    await step(flaky, history, { promptCache: cache });
    history.push({ role: 'assistant', content: 'two' }, { role: 'user', content: 'three' });
    failures = 2;
    await step(flaky, history, { promptCache: cache });
    history.push({ role: 'assistant', content: 'four' }, { role: 'user', content: 'five' });
    await step(flaky, history, { promptCache: cache });
    expect(inner.calls.map((c) => c.prompt.length)).toEqual([1, 3, 5]);
    expect(inner.calls[2]!.prompt.map((m) => (m.content[0] as { text: string }).text)).toEqual([
      'one',
      'two',
      'three',
      'four',
      'five',
    ]);
  });

  /** The conversation of `turns` step by step against two servers, one asked with the cache and one without. */
  async function overTheWire(
    provider: 'openai-compatible' | 'anthropic',
    start: () => Promise<{ url: string; requests: { body: unknown }[]; close(): Promise<void> }>,
  ) {
    const withCache = await start();
    const without = await start();
    try {
      const cachedModel = createLanguageModel(testServerModel(withCache.url, { provider }));
      const freshModel = createLanguageModel(testServerModel(without.url, { provider }));
      const cache = new PromptCache();
      const history: ModelMessage[] = [];
      // The scripted turns without the file parts a chat model does not take (a text file).
      for (const added of turns) {
        history.push(
          ...added.map((message) =>
            message.role === 'user' && Array.isArray(message.content)
              ? { ...message, content: message.content.filter((part) => part.type !== 'file') }
              : message,
          ),
        );
        await step(cachedModel, history, { instructions: 'Be brief.', promptCache: cache });
        await step(freshModel, [...history], { instructions: 'Be brief.' });
      }
      expect(withCache.requests).toHaveLength(turns.length);
      expect(withCache.requests.map((request) => request.body)).toEqual(
        without.requests.map((request) => request.body),
      );
      return withCache.requests.at(-1)!.body as { system?: unknown; messages: { role: string; content?: unknown }[] };
    } finally {
      await withCache.close();
      await without.close();
    }
  }

  test('over the wire: an OpenAI-compatible server gets the same request bodies with and without it', async () => {
    const replies = turns.map(() => ({ text: 'ok' }));
    const last = await overTheWire('openai-compatible', () => startOpenAICompatibleServer({ responses: replies }));
    expect(last.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(last.messages.length).toBeGreaterThan(8);
  });

  test('over the wire: an Anthropic Messages server gets the same request bodies with and without it', async () => {
    const replies = turns.map(() => ({ text: 'ok' }));
    const last = await overTheWire('anthropic', () => startAnthropicTestServer({ responses: replies }));
    expect(JSON.stringify(last.system)).toContain('Be brief.');
    // Anthropic's form: tool results go in user messages, so the roles alternate.
    expect(last.messages.map((message) => message.role)).toContain('assistant');
    expect(JSON.stringify(last.messages)).toContain('tool_result');
    expect(JSON.stringify(last.messages)).toContain('cache_control');
  });
});
