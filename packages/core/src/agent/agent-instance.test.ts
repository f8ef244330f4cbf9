import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel, type ScriptedStep } from '../models/scripted-model.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { TraceStore } from '../store/trace-store.ts';
import type { ToolCatalogItem } from '../types.ts';
import { userEvent } from './agent-event.ts';
import { createMessage } from './create-message.ts';
import { instancePaths } from './instance-paths.ts';
import { type OpenAgentInstanceOptions, openAgentInstance } from './open-agent-instance.ts';
import type { SpanWriteTiming } from './trace-writes.ts';
import type { StepMiddleware, TurnMiddleware } from './turn-types.ts';

const fixture = join(import.meta.dir, '__fixtures__', 'basic');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(steps: ScriptedStep[], extra: Partial<OpenAgentInstanceOptions> = {}) {
  const loaded = await loadBundle({ dir: fixture });
  expect(loaded.problems).toEqual([]);
  const bundle = loaded.bundle!;
  const stateDir = mkdtempSync(join(tmpdir(), 'gdn-agent-'));
  dirs.push(stateDir);
  const model = createScriptedModel(steps);
  const agent = bundle.resources.get('Agent/helper') as AgentResource;
  const instance = await openAgentInstance({
    bundle,
    handlers: loaded.handlers,
    agent,
    instanceKey: 'k1',
    model,
    stateDir,
    ...extra,
  });
  return { instance, model, bundle, loaded, agent, stateDir };
}

describe('Turn/Step loop (spec §2.1, §2.4, §2.5)', () => {
  test('runs steps until the model stops calling tools, and appends call results in order', async () => {
    const { instance, model } = await open([
      {
        toolCalls: [
          { name: 'calc__add', args: { a: 2, b: 3 } },
          { name: 'calc__add', args: { a: 10, b: 1 } },
        ],
      },
      { text: 'The sums are 5 and 11.' },
    ]);
    const result = await instance.enqueue(userEvent('add things'));
    expect(result.status).toBe('completed');
    expect(result.text).toBe('The sums are 5 and 11.');
    expect(result.steps).toBe(2);
    const roles = instance.conversation().map((message) => message.data.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    const secondPrompt = JSON.stringify(model.calls[1]!.prompt);
    expect(secondPrompt).toContain('"sum":5');
    expect(secondPrompt.indexOf('"sum":5')).toBeLessThan(secondPrompt.indexOf('"sum":11'));
  });

  test('spec §2.1.1–2: the model is offered exactly the catalog from Agent spec.tools, with the system prompt', async () => {
    const { instance, model } = await open([{ text: 'hi' }]);
    await instance.enqueue(userEvent('hello'));
    expect(model.calls[0]!.toolNames.sort()).toEqual(['calc__add', 'calc__later', 'calc__slow', 'calc__whoami']);
    expect(model.calls[0]!.prompt[0]).toEqual({ role: 'system', content: 'You are the fixture agent.' });
    const add = model.calls[0]!.tools.find((tool) => tool.name === 'calc__add')!;
    expect(add.inputSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
  });

  test('spec §2.1.3: step middleware edits ctx.toolCatalog and the model sees the edited list', async () => {
    const { instance, model } = await open(
      [{ toolCalls: [{ name: 'calc__add', args: { a: 1, b: 1 } }] }, { text: 'done' }],
      {
        stepMiddlewares: [
          async (ctx) => {
            ctx.toolCatalog = ctx.toolCatalog.filter((item: ToolCatalogItem) => item.name !== 'calc__add');
            return ctx.next();
          },
        ],
      },
    );
    await instance.enqueue(userEvent('go'));
    expect(model.calls[0]!.toolNames).not.toContain('calc__add');
    // The guard follows the edited catalog at execution time (spec §9.1).
    expect(JSON.stringify(instance.conversation()[2]!.data)).toContain('E_TOOL_NOT_IN_CATALOG');
  });

  test('spec §2.1.3: items edited in place by step middleware reach the model at that step only, at every step', async () => {
    const add = { name: 'calc__add', args: { a: 1, b: 1 } };
    const { instance, model } = await open([{ toolCalls: [add] }, { toolCalls: [add] }, { text: 'done' }], {
      stepMiddlewares: [
        async (ctx) => {
          const item = ctx.toolCatalog.find((entry: ToolCatalogItem) => entry.name === 'calc__add')!;
          if (ctx.stepIndex === 0) item.description = 'edited at step 0';
          if (ctx.stepIndex === 1) item.parameters = { type: 'object', properties: { a: { type: 'integer' } } };
          return ctx.next();
        },
      ],
    });
    await instance.enqueue(userEvent('go'));
    const offered = model.calls.map((call) => call.tools.find((tool) => tool.name === 'calc__add')!);
    expect(offered.map((tool) => tool.description)).toEqual([
      'edited at step 0',
      'Adds two integers.',
      'Adds two integers.',
    ]);
    expect(offered.map((tool) => Object.keys((tool.inputSchema as { properties: object }).properties))).toEqual([
      ['a', 'b'],
      ['a'],
      ['a', 'b'],
    ]);
  });

  test('each step sends the conversation as it stands: after turns, after a reset, and as a step middleware changed it', async () => {
    const seenAfter: number[] = [];
    const { instance, model } = await open(
      [
        { toolCalls: [{ name: 'calc__add', args: { a: 2, b: 3 } }] },
        { text: 'five' },
        { text: 'hi again' },
        { text: 'after reset' },
        { text: 'trimmed' },
      ],
      {
        stepMiddlewares: [
          async (ctx) => {
            // Read after the step ran, ctx.messages is still what the step started with.
            const outcome = await ctx.next();
            seenAfter.push(ctx.messages.length);
            return outcome;
          },
          async (ctx) => {
            // Only the fifth call's step drops all but the last message, without touching the conversation.
            if (model.calls.length === 4) ctx.messages = ctx.messages.slice(-1);
            return ctx.next();
          },
        ],
      },
    );
    const sent = (index: number) =>
      model.calls[index]!.prompt.filter((message) => message.role !== 'system').map((message) => message.role);
    await instance.enqueue(userEvent('add'));
    await instance.enqueue(userEvent('hello'));
    expect(sent(0)).toEqual(['user']);
    expect(sent(1)).toEqual(['user', 'assistant', 'tool']);
    expect(sent(2)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    instance.reset();
    await instance.enqueue(userEvent('fresh'));
    expect(sent(3)).toEqual(['user']);
    await instance.enqueue(userEvent('again'));
    expect(sent(4)).toEqual(['user']);
    expect(JSON.stringify(model.calls[4]!.prompt)).toContain('again');
    expect(instance.conversation().map((message) => message.data.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(seenAfter).toEqual([1, 3, 5, 1, 1]);
  });

  test("a provider's warning is logged once, and every model span carries it", async () => {
    const warnings: string[] = [];
    const logger = { ...console, warn: (line: string) => warnings.push(line) } as Console;
    const { instance, model, stateDir } = await open(
      [{ toolCalls: [{ name: 'calc__add', args: { a: 1, b: 2 } }] }, { text: 'three' }],
      { logger },
    );
    const play = model.doStream.bind(model);
    model.doStream = async (options) => {
      const result = await play(options);
      const warn = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          controller.enqueue(
            part.type === 'stream-start' ? { ...part, warnings: [{ type: 'unsupported', feature: 'topK' }] } : part,
          );
        },
      });
      return { ...result, stream: result.stream.pipeThrough(warn) };
    };
    const result = await instance.enqueue(userEvent('add'));
    expect(result.status).toBe('completed');
    expect(warnings).toEqual(['Model scripted:scripted: topK is not supported']);
    await instance.close();
    const db = openInstanceDatabase(
      instancePaths({ rootDir: fixture, agentName: 'helper', instanceKey: 'k1', stateDir }).databaseFile,
    );
    const spans = new TraceStore(db).spansOfTrace(result.traceId).filter((span) => span.kind === 'model');
    expect(spans.map((span) => span.attributes.warnings)).toEqual([
      ['topK is not supported'],
      ['topK is not supported'],
    ]);
    db.close();
  });

  test('unknown tool, broken JSON and schema-violating arguments come back as error results and the turn goes on', async () => {
    const { instance, model } = await open([
      {
        toolCalls: [
          { name: 'secret__add', args: {} },
          { name: 'calc__add', args: '{"a": 1,' },
          { name: 'calc__add', args: { a: 'one' } },
        ],
      },
      { text: 'recovered' },
    ]);
    const result = await instance.enqueue(userEvent('break things'));
    expect(result.status).toBe('completed');
    const toolMessages = instance.conversation().filter((message) => message.data.role === 'tool');
    const codes = toolMessages.map((message) => JSON.stringify(message.data).match(/"code":"(E_[A-Z_]+)"/)?.[1]);
    expect(codes).toEqual(['E_TOOL_NOT_IN_CATALOG', 'E_TOOL_INVALID_ARGS', 'E_TOOL_INVALID_ARGS']);
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('E_TOOL_NOT_IN_CATALOG');
  });

  test('spec §2.5: ToolContext.message is the assistant message holding the call; workdir is the instance workspace', async () => {
    const { instance, stateDir } = await open([
      { toolCalls: [{ name: 'calc__whoami', id: 'call_who' }] },
      { text: 'ok' },
    ]);
    await instance.enqueue(userEvent('who'));
    const messages = instance.conversation();
    const output = JSON.parse(
      JSON.stringify(
        (messages[2]!.data.content as { output: { value: { output: unknown } } }[])[0]!.output.value.output,
      ),
    );
    expect(output).toMatchObject({
      agentName: 'helper',
      instanceKey: 'k1',
      toolCallId: 'call_who',
      messageRole: 'assistant',
    });
    expect(output.messageId).toBe(messages[1]!.id);
    expect(output.workdir).toBe(
      instancePaths({ rootDir: fixture, agentName: 'helper', instanceKey: 'k1', stateDir }).workdir,
    );
  });

  test('the step cap ends the turn with a stated reason', async () => {
    const loop = Array.from({ length: 6 }, () => ({ toolCalls: [{ name: 'calc__add', args: { a: 1, b: 1 } }] }));
    const { instance } = await open(loop);
    const result = await instance.enqueue(userEvent('loop'));
    expect(result.status).toBe('max_steps');
    expect(result.steps).toBe(4);
    expect(result.reason).toContain('maxStepsPerTurn');
  });

  test('a provider failure ends the turn with E_MODEL_CALL_FAILED, nothing crashes', async () => {
    const { instance } = await open([{ error: 'upstream exploded' }]);
    const result = await instance.enqueue(userEvent('hi'));
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('E_MODEL_CALL_FAILED');
    expect(result.error?.message).toContain('upstream exploded');
  });

  test('cancelling a turn aborts running tools and leaves every call answered', async () => {
    const { instance } = await open([{ toolCalls: [{ name: 'calc__slow', args: { ms: 5000 } }] }, { text: 'never' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await instance.enqueue(userEvent('slow'), { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    const messages = instance.conversation();
    expect(messages.map((message) => message.data.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(messages[2]!.data)).toContain('E_TOOL_ABORTED');
  });

  test('events queue FIFO and run one turn at a time', async () => {
    const { instance } = await open([{ text: 'first' }, { text: 'second' }, { text: 'third' }]);
    const results = await Promise.all([
      instance.enqueue(userEvent('1')),
      instance.enqueue(userEvent('2')),
      instance.enqueue(userEvent('3')),
    ]);
    expect(results.map((result) => result.text)).toEqual(['first', 'second', 'third']);
    const users = instance.conversation().filter((message) => message.data.role === 'user');
    expect(users.map((message) => message.data.content)).toEqual(['1', '2', '3']);
  });

  test('spec §10.2: a pending job answers with a handle, and its completion arrives as an event that starts a turn', async () => {
    const ended: string[] = [];
    const { instance } = await open(
      [{ toolCalls: [{ name: 'calc__later' }] }, { text: 'submitted' }, { text: 'job is done' }],
      { observer: { onTurnEnd: (result) => ended.push(result.text) } },
    );
    await instance.enqueue(userEvent('start job'));
    const deadline = Date.now() + 30_000;
    while (ended.length < 2 && Date.now() < deadline) await Bun.sleep(10);
    expect(ended).toEqual(['submitted', 'job is done']);
    const texts = instance.conversation().map((message) => JSON.stringify(message.data));
    expect(texts.some((text) => text.includes('"status":"pending"'))).toBe(true);
    expect(texts.some((text) => text.includes('finished') && text.includes('"role":"user"'))).toBe(true);
  });

  test('the conversation survives reopening the instance, and traces are stored as a tree', async () => {
    const first = await open([{ toolCalls: [{ name: 'calc__add', args: { a: 1, b: 2 } }] }, { text: 'three' }]);
    const result = await first.instance.enqueue(userEvent('sum'));
    await first.instance.close();
    const reopened = await openAgentInstance({
      bundle: first.bundle,
      handlers: first.loaded.handlers,
      agent: first.agent,
      instanceKey: 'k1',
      model: createScriptedModel([{ text: 'again' }]),
      stateDir: first.stateDir,
    });
    expect(reopened.conversation().map((message) => message.data.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    const traces = new TraceStore(
      openInstanceDatabase(
        instancePaths({ rootDir: fixture, agentName: 'helper', instanceKey: 'k1', stateDir: first.stateDir })
          .databaseFile,
      ),
    );
    const spans = traces.spansOfTrace(result.traceId);
    expect(spans.map((span) => span.kind).sort()).toEqual(['model', 'model', 'step', 'step', 'tool', 'turn']);
    const turn = spans.find((span) => span.kind === 'turn')!;
    expect(spans.filter((span) => span.kind === 'step').every((span) => span.parentSpanId === turn.spanId)).toBe(true);
  });

  test("a turn's end span is written after the turn returns: once the instance is quiet, and within the wait while turns keep ending", async () => {
    // Timers run between these (a loop of setImmediate alone would starve them).
    const nextTick = () => Bun.sleep(0);
    // Turns answered by a middleware (as an agent answering requests without its model): nothing else commits, so
    // their spans wait for the timer alone.
    const answer: TurnMiddleware = async (ctx) => ({
      turnId: ctx.turnId,
      traceId: 'unused',
      eventId: ctx.event.id,
      status: 'completed',
      text: 'pong',
      steps: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    const opened = async (spanWrites: SpanWriteTiming) => {
      const traceOf = new Map<string, string>();
      const { instance, stateDir } = await open([], {
        spanWrites,
        turnMiddlewares: [answer],
        observer: { onTurnStart: ({ turnId, traceId }) => traceOf.set(turnId, traceId) },
      });
      const traces = new TraceStore(
        openInstanceDatabase(
          instancePaths({ rootDir: fixture, agentName: 'helper', instanceKey: 'k1', stateDir }).databaseFile,
        ),
      );
      // The middleware's result does not know the turn's trace: the observer told it.
      const status = (turnId: string) =>
        traces.spansOfTrace(traceOf.get(turnId)!).find((span) => span.kind === 'turn')?.status ?? 'not written';
      return { instance, status };
    };

    // Quiet: written once no turn has ended for quietMs (no upper wait here); closing writes those still waiting.
    const quiet = await opened({ quietMs: 2, maxDelayMs: 1e9 });
    const first = await quiet.instance.enqueue(userEvent('one'));
    expect(quiet.status(first.turnId)).toBe('not written');
    while (quiet.status(first.turnId) === 'not written') await nextTick();
    expect(quiet.status(first.turnId)).toBe('ok');
    const last = await quiet.instance.enqueue(userEvent('last'));
    expect(quiet.status(last.turnId)).toBe('not written');
    await quiet.instance.close();
    expect(quiet.status(last.turnId)).toBe('ok');

    // Busy (never quiet for that long): turns one after another, and the first one's end is still written while
    // they go on, maxDelayMs after it ended, not when they stop. A millisecond or more between turns: far fewer
    // than the 256 turns (512 spans) that would be written at once anyway.
    const busy = await opened({ quietMs: 1e9, maxDelayMs: 20 });
    // Taken before the turn: its end (and so the wait) comes after this.
    const started = performance.now();
    const firstBusy = await busy.instance.enqueue(userEvent('busy 0'));
    let turns = 1;
    while (busy.status(firstBusy.turnId) === 'not written') {
      await busy.instance.enqueue(userEvent(`busy ${turns}`));
      turns += 1;
      await Bun.sleep(1);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(19);
    expect(busy.status(firstBusy.turnId)).toBe('ok');
    expect(turns).toBeGreaterThan(1);
    expect(turns).toBeLessThan(256);
    await busy.instance.close();
  });
});

describe('turn and step middleware that resolve to something else than a result', () => {
  const forgot = async (ctx: { next(): Promise<unknown> }) => {
    await ctx.next();
  };
  test.each([
    [
      'a step middleware',
      { stepMiddlewares: [forgot as never] },
      'Step 0 failed: a step middleware resolved to nothing',
    ],
    [
      'a turn middleware',
      { turnMiddlewares: [forgot as never] },
      'The turn failed: a turn middleware resolved to nothing',
    ],
    [
      'a turn middleware answering a string',
      { turnMiddlewares: [(async () => 'pong') as never] },
      'The turn failed: a turn middleware resolved to a string',
    ],
  ])('%s: the turn is an E_TURN_FAILED result that says so; enqueue does not throw', async (_label, extra, says) => {
    const { instance } = await open([{ text: 'one' }, { text: 'two' }], extra);
    const turn = await instance.enqueue(userEvent('hello'));
    expect(turn).toMatchObject({ status: 'error', error: { code: 'E_TURN_FAILED' } });
    expect(turn.error?.message).toStartWith(says);
    expect(turn.error?.message).toContain('return what ctx.next() resolves to');
    await instance.close();
  });
});

describe('a turn or step middleware that never answers', () => {
  // Cancelling ends the turn: our own part is waited for, then the middleware has a short grace; what our part
  // answered stands (a turn that completed before its middleware hung is completed), otherwise it is cancelled.
  test.each([
    ['a turn middleware before next()', { turnMiddlewares: [(() => new Promise(() => {})) as never] }, 'cancelled'],
    [
      'a turn middleware after next()',
      {
        turnMiddlewares: [
          (async (ctx: { next(): Promise<unknown> }) => {
            await ctx.next();
            await new Promise(() => {});
          }) as never,
        ],
      },
      'completed',
    ],
    ['a step middleware', { stepMiddlewares: [(() => new Promise(() => {})) as never] }, 'cancelled'],
  ])('%s: cancelling the turn ends it', async (_label, extra, status) => {
    const { instance } = await open([{ text: 'one' }, { text: 'two' }], extra);
    const controller = new AbortController();
    const first = instance.enqueue(userEvent('hang'), { signal: controller.signal });
    // The turn is under way (its middleware holds it) when it is cancelled.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort('stop');
    const result = await first;
    expect(result.status).toBe(status as never);
    if (status === 'completed') expect(result.text).toBe('one');
    await instance.close();
  });
});

describe('a step middleware that breaks ctx.messages or ctx.toolCatalog', () => {
  const setting =
    (key: 'messages' | 'toolCatalog', value: unknown): StepMiddleware =>
    async (ctx) => {
      (ctx as unknown as Record<string, unknown>)[key] = value;
      return ctx.next();
    };
  test.each([
    [
      'AI SDK messages instead of Messages',
      setting('messages', [{ role: 'user', content: 'hi' }]),
      'ctx.messages has an object of another shape at 0, which has no data.role',
    ],
    ['an empty message list', setting('messages', []), 'ctx.messages is empty'],
    ['a string as messages', setting('messages', 'hi'), 'ctx.messages is a string, not an array'],
    [
      'a string as the catalog',
      setting('toolCatalog', 'calc__add'),
      "The step's tool catalog is a string, not an array",
    ],
    [
      'a catalog item without a name',
      setting('toolCatalog', [{ description: 'x' }]),
      "The step's tool catalog has an object of another shape at 0, which has no name",
    ],
  ])(
    '%s: the turn ends E_TURN_FAILED saying what is wrong, and the model is not called',
    async (_label, middleware, says) => {
      const { instance, model } = await open([{ text: 'one' }], { stepMiddlewares: [middleware] });
      const turn = await instance.enqueue(userEvent('hello'));
      expect(turn).toMatchObject({ status: 'error', error: { code: 'E_TURN_FAILED' } });
      expect(turn.error?.message).toContain(says);
      expect(model.calls).toHaveLength(0);
      await instance.close();
    },
  );

  test('Messages made with createMessage are sent as the model messages they hold', async () => {
    const { instance, model } = await open([{ text: 'one' }], {
      stepMiddlewares: [
        async (ctx) => {
          ctx.messages = [createMessage({ role: 'user', content: 'only this' }, { type: 'user' })];
          return ctx.next();
        },
      ],
    });
    expect((await instance.enqueue(userEvent('hello'))).status).toBe('completed');
    expect(model.calls[0]!.prompt.filter((message) => message.role === 'user')).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'only this' }] },
    ]);
    await instance.close();
  });
});

describe('misuse by an embedding application', () => {
  test('an event that is not one is refused (E_EVENT_INVALID) and stores nothing; the next turn works', async () => {
    const { instance } = await open([{ text: 'Hello.' }]);
    const fromMissingField = userEvent((JSON.parse('{"msg":"hi"}') as { message: string }).message);
    for (const event of [fromMissingField, userEvent({ a: 1 } as never), null, 'hi', { input: 'no id' }]) {
      await expect(instance.enqueue(event as never)).rejects.toMatchObject({ code: 'E_EVENT_INVALID' });
    }
    expect(instance.conversation()).toEqual([]);
    expect((await instance.enqueue(userEvent('hello'))).status).toBe('completed');
    expect(instance.conversation().map((message) => message.data.role)).toEqual(['user', 'assistant']);
    await instance.close();
  });

  test('reset() while a turn runs is refused (E_INSTANCE_BUSY); after the turn it clears the conversation', async () => {
    const { instance } = await open([{ toolCalls: [{ name: 'calc__slow', args: { ms: 300 } }] }, { text: 'Done.' }]);
    let resetDuringTurn: unknown;
    const turn = instance.enqueue(userEvent('wait'));
    await new Promise<void>((resolve) => {
      const poll = () => (instance.conversation().length > 0 ? resolve() : setTimeout(poll, 5));
      poll();
    });
    try {
      instance.reset();
    } catch (thrown) {
      resetDuringTurn = thrown;
    }
    expect(resetDuringTurn).toMatchObject({ code: 'E_INSTANCE_BUSY' });
    expect((await turn).status).toBe('completed');
    instance.reset();
    expect(instance.conversation()).toEqual([]);
    await instance.close();
  });

  test('an async observer that rejects does not end the process, and the turn completes', async () => {
    const { instance } = await open([{ text: 'Fine.' }], {
      observer: {
        onTurnEnd: async () => {
          throw new Error('async observer boom');
        },
      },
    });
    expect((await instance.enqueue(userEvent('go'))).status).toBe('completed');
    // A rejection left unhandled would fail this test file: give it a turn of the event loop to surface.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await instance.close();
  });

  test('after close(), enqueue, reset and answerApproval say the instance is closed (E_AGENT_SHUTTING_DOWN)', async () => {
    const { instance } = await open([{ text: 'x' }]);
    await instance.close();
    await expect(instance.enqueue(userEvent('late'))).rejects.toMatchObject({ code: 'E_AGENT_SHUTTING_DOWN' });
    expect(() => instance.reset()).toThrow(expect.objectContaining({ code: 'E_AGENT_SHUTTING_DOWN' }));
    expect(() => instance.answerApproval('apr_x', { action: 'approve' })).toThrow(
      expect.objectContaining({ code: 'E_AGENT_SHUTTING_DOWN' }),
    );
  });

  test.each([
    ['null', null, 'is not an object'],
    ['an unknown action', { action: 'APPROVE' }, 'has action "APPROVE"'],
    ['no action', {}, 'has action missing'],
    ['an unknown scope', { action: 'approve', scope: 'forever' }, 'has scope "forever"'],
    ['a reason that is not text', { action: 'deny', reason: 5 }, 'reason that is not text'],
  ])('answerApproval with %s is E_APPROVAL_ANSWER_INVALID, never taken as a denial', async (_label, answer, said) => {
    const { instance } = await open([{ text: 'x' }]);
    expect(() => instance.answerApproval('apr_x', answer as never)).toThrow(
      expect.objectContaining({ code: 'E_APPROVAL_ANSWER_INVALID', message: expect.stringContaining(said) }),
    );
    await instance.close();
  });
});

describe('a model that ignores its abort signal', () => {
  test('cancelling the turn ends it, and the turn queued behind it runs', async () => {
    const scripted = createScriptedModel([{ text: 'Second turn.' }]);
    let calls = 0;
    const hanging = {
      ...scripted,
      doStream: (options: Parameters<typeof scripted.doStream>[0]) => {
        calls += 1;
        return calls === 1 ? new Promise<never>(() => {}) : scripted.doStream(options);
      },
    };
    const { instance } = await open([], { model: hanging as never });
    const controller = new AbortController();
    const first = instance.enqueue(userEvent('hang'), { signal: controller.signal });
    const second = instance.enqueue(userEvent('then this'));
    await new Promise<void>((resolve) => {
      const poll = () => (calls > 0 ? resolve() : setTimeout(poll, 5));
      poll();
    });
    controller.abort('stop');
    expect((await first).status).toBe('cancelled');
    expect((await second).text).toBe('Second turn.');
    await instance.close();
  });
});

describe('entry points given options of the wrong kind', () => {
  test('loadBundle names the option (E_OPTIONS_INVALID) instead of a TypeError', async () => {
    for (const options of [undefined, { dir: 42 }, { dir: fixture, libraries: 'lib' }]) {
      await expect(loadBundle(options as never)).rejects.toMatchObject({
        code: 'E_OPTIONS_INVALID',
        message: expect.stringContaining('loadBundle'),
      });
    }
  });

  test('openAgentInstance names the option (E_OPTIONS_INVALID) and opens nothing', async () => {
    const { instance, bundle, loaded, agent, stateDir } = await open([{ text: 'x' }]);
    await instance.close();
    const base = { bundle, handlers: loaded.handlers, agent, instanceKey: 'k2', stateDir };
    const cases: [string, object][] = [
      ['agent', { ...base, agent: undefined }],
      ['handlers', { ...base, handlers: {} }],
      ['bundle', { ...base, bundle: null }],
      ['instanceKey', { ...base, instanceKey: 5 }],
      ['stateDir', { ...base, stateDir: 7 }],
    ];
    for (const [name, options] of cases) {
      await expect(openAgentInstance(options as never)).rejects.toMatchObject({
        code: 'E_OPTIONS_INVALID',
        message: expect.stringContaining(`openAgentInstance: options.${name} must be`),
      });
    }
  });
});

describe('a user message too large to store', () => {
  test('the turn ends E_STORE_VALUE_INVALID naming its size, the model is not called, and the instance goes on', async () => {
    const { instance, model } = await open([{ text: 'after it' }]);
    const turn = await instance.enqueue(userEvent('z'.repeat(70 * 1024 * 1024)));
    expect(turn).toMatchObject({ status: 'error', error: { code: 'E_STORE_VALUE_INVALID' } });
    expect(turn.error?.message).toContain('characters as stored, more than the 67,108,864 one message may take');
    expect(model.calls).toHaveLength(0);
    const next = await instance.enqueue(userEvent('a short one'));
    expect(next).toMatchObject({ status: 'completed', text: 'after it' });
    expect(instance.conversation().map((message) => message.data.role)).toEqual(['user', 'assistant']);
    await instance.close();
  });
});
