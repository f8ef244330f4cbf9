import { describe, expect, test } from 'bun:test';
import { APICallError, type LanguageModelV4, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { jsonSchema, RetryError, type ToolSet, tool } from 'ai';
import { createLanguageModel } from './create-language-model.ts';
import { startOpenAICompatibleServer, testServerModel } from './openai-compatible-test-server.ts';
import { createScriptedModel } from './scripted-model.ts';
import {
  describeModelWarning,
  MAX_ANSWER_CHARS,
  type ModelRetryNotice,
  type ModelStepRequest,
  retryDelayMs,
  streamModelStep,
} from './stream-model-step.ts';

const tools: ToolSet = {
  greet__hello: tool({
    description: 'Say hello',
    inputSchema: jsonSchema({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }),
  }),
};

function failure(options: { retryable: boolean; headers?: Record<string, string>; status?: number }): APICallError {
  return new APICallError({
    message: `HTTP ${options.status ?? 503}`,
    url: 'http://127.0.0.1:9/v1/chat/completions',
    requestBodyValues: {},
    statusCode: options.status ?? 503,
    isRetryable: options.retryable,
    ...(options.headers ? { responseHeaders: options.headers } : {}),
  });
}

/** A model whose first calls throw the given errors, then streams `parts`. */
function failingModel(errors: Error[], parts: LanguageModelV4StreamPart[]): LanguageModelV4 & { attempts: number } {
  const model = {
    specificationVersion: 'v4' as const,
    provider: 'test',
    modelId: 'failing',
    supportedUrls: {},
    attempts: 0,
    async doGenerate(): Promise<never> {
      throw new Error('not used');
    },
    async doStream() {
      model.attempts += 1;
      const error = errors[model.attempts - 1];
      if (error) throw error;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return model;
}

const usage = {
  inputTokens: { total: 7, noCache: 4, cacheRead: 3, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};
const hello: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Hel' },
  { type: 'text-delta', id: 't', delta: 'lo' },
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];
// Fast retries: the provider asks for 1 ms.
const quick = { 'retry-after-ms': '1' };

/** A step's call with one user message and no tools (the test's model and options over it). */
function ask(model: LanguageModelV4, extra: Partial<ModelStepRequest> = {}) {
  return streamModelStep({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    tools: {},
    abortSignal: new AbortController().signal,
    ...extra,
  });
}

describe('streamModelStep', () => {
  test('text deltas as they come, tool calls, usage, finish reason and the assistant message', async () => {
    const model = createScriptedModel([
      { text: 'Calling.', toolCalls: [{ name: 'greet__hello', args: { name: 'Ada' } }] },
    ]);
    const deltas: string[] = [];
    const result = await streamModelStep({
      model,
      instructions: 'Be brief.',
      messages: [{ role: 'user', content: 'greet Ada' }],
      tools,
      settings: { temperature: 0.2, maxRetries: 0, providerOptions: { scripted: { x: 1 } } },
      abortSignal: new AbortController().signal,
      onTextDelta: (delta) => deltas.push(delta),
    });
    expect(deltas.join('')).toBe('Calling.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(result.text).toBe('Calling.');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([['greet__hello', { name: 'Ada' }]]);
    expect(result.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Calling.' },
          { type: 'tool-call', toolCallId: 'call_1_0', toolName: 'greet__hello', input: { name: 'Ada' } },
        ],
      },
    ]);
    // What the model was sent: the system instructions, the tools, the settings (maxRetries is ours, not the model's).
    const [call] = model.calls;
    expect(call!.prompt[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(call!.toolNames).toEqual(['greet__hello']);
    expect(call!.settings.temperature).toBe(0.2);
    expect(call!.settings.providerOptions).toEqual({ scripted: { x: 1 } });
    expect('maxRetries' in call!.settings).toBe(false);
  });

  test('cache reads are reported apart from the totals', async () => {
    const result = await ask(failingModel([], hello));
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 2, cacheReadTokens: 3 });
    expect(result.messages).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] }]);
  });

  test('retryable failures are retried, each told as it happens, then the answer', async () => {
    const model = failingModel(
      [failure({ retryable: true, headers: quick }), failure({ retryable: true, headers: quick })],
      hello,
    );
    const notices: ModelRetryNotice[] = [];
    const result = await ask(model, { onRetry: (notice) => notices.push(notice) });
    expect(result.text).toBe('Hello');
    expect(model.attempts).toBe(3);
    expect(notices).toEqual([
      { attempt: 1, maxAttempts: 3, message: 'HTTP 503', delayMs: 1 },
      { attempt: 2, maxAttempts: 3, message: 'HTTP 503', delayMs: 1 },
    ]);
  });

  test('retries used up: a RetryError holding every attempt; maxRetries 0 throws the error itself', async () => {
    const errors = [0, 1, 2].map(() => failure({ retryable: true, headers: quick }));
    const thrown = await ask(failingModel(errors, hello)).catch((error: unknown) => error);
    expect(RetryError.isInstance(thrown)).toBe(true);
    expect((thrown as RetryError).errors).toEqual(errors);
    expect((thrown as Error).message).toStartWith('Failed after 3 attempts. Last error: ');
    expect((thrown as Error).message).toEndWith('HTTP 503');

    const only = failure({ retryable: true });
    const direct = await ask(failingModel([only], hello), { settings: { maxRetries: 0 } }).catch(
      (error: unknown) => error,
    );
    expect(direct).toBe(only);
  });

  test('a failure that is not retryable is thrown at once, with no notice', async () => {
    const refused = failure({ retryable: false, status: 401 });
    const model = failingModel([refused], hello);
    const notices: ModelRetryNotice[] = [];
    const thrown = await ask(model, { onRetry: (notice) => notices.push(notice) }).catch((error: unknown) => error);
    expect(thrown).toBe(refused);
    expect(model.attempts).toBe(1);
    expect(notices).toEqual([]);
  });

  test('an error in the stream is thrown (not retried); a throwing observer breaks nothing', async () => {
    const broken: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hal' },
      { type: 'error', error: failure({ retryable: true }) },
    ];
    const model = failingModel([], broken);
    const thrown = await ask(model).catch((error: unknown) => error);
    expect(APICallError.isInstance(thrown)).toBe(true);
    expect(model.attempts).toBe(1);

    const retried = failingModel([failure({ retryable: true, headers: quick })], hello);
    const result = await ask(retried, {
      onRetry: () => {
        throw new Error('observer failed');
      },
    });
    expect(result.text).toBe('Hello');
  });

  test("the provider's warnings come back as lines", async () => {
    const [start, ...rest] = hello;
    const warned: LanguageModelV4StreamPart[] = [
      {
        ...(start as Extract<LanguageModelV4StreamPart, { type: 'stream-start' }>),
        warnings: [
          { type: 'unsupported', feature: 'topK', details: 'ignored by this model' },
          { type: 'compatibility', feature: 'seed' },
          { type: 'deprecated', setting: 'maxTokens', message: 'use maxOutputTokens' },
          { type: 'other', message: 'something else' },
        ],
      },
      ...rest,
    ];
    const result = await ask(failingModel([], warned));
    expect(result.warnings).toEqual([
      'topK is not supported (ignored by this model)',
      'seed runs in a compatibility mode',
      'maxTokens is deprecated: use maxOutputTokens',
      'something else',
    ]);
    expect(describeModelWarning({ type: 'unsupported', feature: 'tools' })).toBe('tools is not supported');
  });

  test('a stream that ends without its finish part: what arrived is the answer', async () => {
    const cut: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Half' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'greet__hello', input: '{"name":"Ada"}' },
    ];
    const result = await ask(failingModel([], cut), { tools });
    expect(result.finishReason).toBe('unknown');
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(result.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Half' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'greet__hello', input: { name: 'Ada' } },
        ],
      },
    ]);
  });

  test('an answer past MAX_ANSWER_CHARS is given up as E_MODEL_CALL_FAILED, before the text grows further', async () => {
    const piece = 'A'.repeat(1024 * 1024);
    const endless: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      ...Array.from({ length: 12 }, () => ({ type: 'text-delta' as const, id: 't', delta: piece })),
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    ];
    let streamed = 0;
    const error = await ask(failingModel([], endless), {
      onTextDelta: (text) => {
        streamed += text.length;
      },
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'E_MODEL_CALL_FAILED' });
    expect((error as Error).message).toContain(`passed ${MAX_ANSWER_CHARS} characters`);
    expect(streamed).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
  });

  test('a model that goes quiet, even one ignoring its abort signal, is given up after idleTimeoutMs', async () => {
    const quiet: LanguageModelV4 = {
      ...failingModel([], []),
      async doStream() {
        // One part, then nothing, and the abort signal is not listened to.
        return {
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(controller) {
              controller.enqueue({ type: 'stream-start', warnings: [] });
            },
          }),
        };
      },
    };
    const started = Date.now();
    const error = await ask(quiet, { settings: { idleTimeoutMs: 150 } }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'E_MODEL_CALL_FAILED' });
    expect((error as Error).message).toContain('sent nothing for 150 ms');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('an abort rejects the call', async () => {
    const controller = new AbortController();
    const pending = ask(createScriptedModel([{ text: 'late', delayMs: 10_000 }]), { abortSignal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});

describe('over HTTP (OpenAI-compatible test server)', () => {
  test('a 429 is retried after the wait its retry-after-ms header asks, then the answer; a 400 is not retried', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        { status: 429, errorHeaders: { 'retry-after-ms': '20' } },
        { text: 'after the wait' },
        { status: 400 },
      ],
    });
    try {
      const model = createLanguageModel(testServerModel(server.url));
      const notices: ModelRetryNotice[] = [];
      const onRetry = (notice: ModelRetryNotice) => notices.push(notice);
      const result = await ask(model, { onRetry });
      expect(result.text).toBe('after the wait');
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ attempt: 1, maxAttempts: 3, delayMs: 20 });
      const refused = await ask(model, { onRetry }).catch((error: unknown) => error);
      expect(APICallError.isInstance(refused) && refused.statusCode).toBe(400);
      expect(notices).toHaveLength(1);
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});

describe('a model server that stops answering (idleTimeoutMs)', () => {
  test('no answer headers, or an answer that stops midway, end the call with E_MODEL_CALL_FAILED', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        { text: 'never sent', delayMs: 60_000 },
        { text: 'Hello there, friend', stallAfterChunks: 2 },
      ],
    });
    try {
      const model = createLanguageModel(testServerModel(server.url, { params: { maxRetries: 0 } }));
      const settings = { idleTimeoutMs: 300, maxRetries: 0 };
      const silent = await ask(model, { settings }).catch((thrown: unknown) => thrown);
      expect(silent).toMatchObject({ code: 'E_MODEL_CALL_FAILED' });
      expect((silent as Error).message).toContain('sent nothing for 300 ms');
      let streamed = '';
      const stalled = await ask(model, {
        settings,
        onTextDelta: (text) => {
          streamed += text;
        },
      }).catch((thrown: unknown) => thrown);
      expect(stalled).toMatchObject({ code: 'E_MODEL_CALL_FAILED' });
      expect(streamed).toBe('Hello t');
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test('the wait between two attempts is not silence: a retry-after longer than idleTimeoutMs still gets the answer', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [{ status: 503, errorHeaders: { 'retry-after-ms': '400' } }, { text: 'after the wait' }],
    });
    try {
      const model = createLanguageModel(testServerModel(server.url));
      const result = await ask(model, { settings: { idleTimeoutMs: 200 } });
      expect(result.text).toBe('after the wait');
    } finally {
      await server.close();
    }
  });
});

describe('retryDelayMs', () => {
  const now = Date.parse('2026-11-27T10:00:00Z');
  const delayFor = (headers: Record<string, string> | undefined) =>
    retryDelayMs(failure({ retryable: true, ...(headers ? { headers } : {}) }), 2000, now);

  test('what the provider asks, when it is under a minute; the backoff otherwise', () => {
    expect(delayFor(undefined)).toBe(2000);
    expect(delayFor({ 'retry-after-ms': '150' })).toBe(150);
    expect(delayFor({ 'retry-after': '3' })).toBe(3000);
    expect(delayFor({ 'retry-after-ms': '150', 'retry-after': '3' })).toBe(150);
    expect(delayFor({ 'retry-after': 'Fri, 27 Nov 2026 10:00:05 GMT' })).toBe(5000);
    expect(delayFor({ 'retry-after': '3600' })).toBe(2000);
    expect(delayFor({ 'retry-after': 'Fri, 27 Nov 2026 09:00:00 GMT' })).toBe(2000);
    expect(delayFor({ 'retry-after': 'soon' })).toBe(2000);
    expect(retryDelayMs(new Error('plain'), 4000, now)).toBe(4000);
    // The doubling stops at a minute: a large maxRetries retries once a minute, never in a tight loop.
    expect(retryDelayMs(new Error('plain'), 2 ** 40, now)).toBe(60_000);
    expect(retryDelayMs(failure({ retryable: true, headers: { 'retry-after': '3600' } }), 2 ** 40, now)).toBe(60_000);
    expect(delayFor({ 'retry-after': '59' })).toBe(59_000);
  });
});
