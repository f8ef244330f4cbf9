import { describe, expect, test } from 'bun:test';
import { PermissionPolicy } from '../permissions/permission-policy.ts';
import type { AuditEntry } from '../permissions/permission-types.ts';
import type { ToolCallMiddleware, ToolCatalogItem, ToolContext } from '../types.ts';
import { registryWith, testScope } from './test-support.ts';
import { ToolCatalog } from './tool-catalog.ts';
import { ToolExecutor } from './tool-executor.ts';

const echo: ToolCatalogItem = {
  name: 'echo__say',
  description: 'echo',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
    required: ['text'],
    additionalProperties: false,
  },
  source: { type: 'config', name: 'echo' },
};
const hidden: ToolCatalogItem = { name: 'secret__run', source: { type: 'config', name: 'secret' } };

function setup(
  options: {
    handler?: (ctx: ToolContext, input: Record<string, unknown>) => unknown;
    middlewares?: ToolCallMiddleware[];
  } & {
    errorMessageLimit?: number;
    timeoutMs?: number;
    outputLimit?: number;
    allowRegistryDirectCalls?: boolean;
  } = {},
) {
  const registry = registryWith([
    {
      item: echo,
      handler: options.handler ?? ((_ctx, input) => ({ said: input.text })),
      options: {
        errorMessageLimit: options.errorMessageLimit,
        timeoutMs: options.timeoutMs,
        outputLimit: options.outputLimit,
      },
    },
    { item: hidden, handler: () => 'ran hidden' },
  ]);
  const executor = new ToolExecutor({
    registry,
    middlewares: options.middlewares,
    permissions: new PermissionPolicy({}, { allowAllRegistryDirectCalls: options.allowRegistryDirectCalls }),
  });
  const catalog = new ToolCatalog([echo]);
  return { executor, catalog, registry };
}

describe('catalog guard (spec §2.3, §9)', () => {
  test('spec §2.3.2: rejects a call to a registered tool that is not in the catalog', async () => {
    const { executor, catalog } = setup();
    const result = await executor.execute({ id: 'c1', name: 'secret__run', args: {} }, { catalog, scope: testScope() });
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    expect(result.error?.name).toBe('ToolNotInCatalogError');
    expect(result.error?.message).toContain("Tool 'secret__run' is not available in the current Tool Catalog.");
    expect(result.error?.suggestion).toBeTruthy();
    expect(result.error?.helpUrl).toContain('E_TOOL_NOT_IN_CATALOG');
  });

  test('spec §2.3.2: rejects an unknown tool name with E_TOOL_NOT_IN_CATALOG', async () => {
    const { executor, catalog } = setup();
    const result = await executor.execute({ id: 'c1', name: 'nope__x', args: {} }, { catalog, scope: testScope() });
    expect(result.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
  });

  test('spec §2.3.3: registry direct calls run only when the security policy names them, and are audited', async () => {
    const audit: AuditEntry[] = [];
    const registry = registryWith([
      { item: echo, handler: () => null },
      { item: hidden, handler: () => 'ran hidden' },
    ]);
    const executor = new ToolExecutor({
      registry,
      permissions: new PermissionPolicy({ registryDirectCalls: ['secret__*'] }),
    });
    const scope = { ...testScope(), audit: (entry: AuditEntry) => audit.push(entry) };
    const result = await executor.execute(
      { id: 'c1', name: 'secret__run', args: {} },
      { catalog: new ToolCatalog([echo]), scope },
    );
    expect(result).toEqual({ status: 'ok', output: 'ran hidden' });
    expect(audit.map((entry) => [entry.toolName, entry.direct, entry.status])).toEqual([['secret__run', true, 'ok']]);
    const closed = new ToolExecutor({ registry });
    const refused = await closed.execute(
      { id: 'c3', name: 'secret__run', args: {} },
      { catalog: new ToolCatalog([echo]), scope },
    );
    expect(refused.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    expect(audit.at(-1)).toMatchObject({ toolName: 'secret__run', decision: 'refused', direct: false });
    const unknown = await executor.execute(
      { id: 'c2', name: 'ghost__run', args: {} },
      { catalog: new ToolCatalog([echo]), scope: testScope() },
    );
    expect(unknown.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
  });

  test('a catalog entry with nothing registered behind it answers E_TOOL_NOT_FOUND', async () => {
    const { executor } = setup();
    const result = await executor.execute(
      { id: 'c1', name: 'ghost__run', args: {} },
      { catalog: new ToolCatalog([{ name: 'ghost__run' }]), scope: testScope() },
    );
    expect(result.error?.code).toBe('E_TOOL_NOT_FOUND');
  });
});

describe('argument validation', () => {
  test('lists every schema problem with its path (E_TOOL_INVALID_ARGS)', async () => {
    const { executor, catalog } = setup();
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { count: 0, extra: true } },
      { catalog, scope: testScope() },
    );
    expect(result.error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect(result.error?.message).toContain('text: is required');
    expect(result.error?.message).toContain('count: must be >= 1');
    expect(result.error?.message).toContain('extra: is not an allowed property');
  });

  test('arguments nested more than 100 levels deep are E_TOOL_INVALID_ARGS, as a string or an object', async () => {
    const { executor, catalog } = setup();
    const deep = `{"text":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    for (const args of [deep, JSON.parse(deep)]) {
      const result = await executor.execute({ id: 'c1', name: 'echo__say', args }, { catalog, scope: testScope() });
      expect(result.error?.code).toBe('E_TOOL_INVALID_ARGS');
      expect(result.error?.message).toContain('arguments are nested more than 100 levels deep');
    }
  });

  test('broken JSON arguments from a model become E_TOOL_INVALID_ARGS', async () => {
    const { executor, catalog } = setup();
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: '{"text": "a' },
      { catalog, scope: testScope() },
    );
    expect(result.error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect(result.error?.message).toContain('not valid JSON');
  });

  test('arguments that are an array are refused', async () => {
    const { executor, catalog } = setup();
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: '[1,2]' },
      { catalog, scope: testScope() },
    );
    expect(result.error?.message).toContain('must be a JSON object, got array');
  });

  test('valid JSON-string arguments are parsed and reach the handler', async () => {
    const { executor, catalog } = setup();
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: '{"text":"hi"}' },
      { catalog, scope: testScope() },
    );
    expect(result).toEqual({ status: 'ok', output: { said: 'hi' } });
  });
});

describe('errors become ToolResults (spec §2.4, §10)', () => {
  test('spec §2.4.1: a thrown Error becomes status error with code E_TOOL', async () => {
    const { executor, catalog } = setup({
      handler: () => {
        throw new TypeError('bad thing');
      },
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result).toEqual({
      status: 'error',
      error: {
        code: 'E_TOOL',
        name: 'TypeError',
        message: 'bad thing',
        suggestion: 'Check the input parameters and try again.',
        helpUrl: 'docs/errors/E_TOOL.md',
      },
    });
  });

  test.each([
    ['a string', 'plain string', 'plain string'],
    ['undefined', undefined, 'Handler threw undefined'],
    ['null', null, 'Handler threw null'],
    ['an object', { reason: 'x', n: 1n }, '{"reason":"x","n":"1"}'],
    ['a number', 42, '42'],
  ])('spec §2.4.1: a handler throwing %s is turned into a ToolResult', async (_label, thrown, expected) => {
    const { executor, catalog } = setup({
      handler: async () => {
        throw thrown;
      },
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.status).toBe('error');
    expect(result.error?.message).toBe(expected);
  });

  test('spec §2.4.2: error.message is cut to the tool errorMessageLimit', async () => {
    const { executor, catalog } = setup({
      errorMessageLimit: 50,
      handler: () => {
        throw new Error('x'.repeat(500));
      },
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.error?.message).toHaveLength(50);
    expect(result.error?.message.endsWith('... (truncated)')).toBe(true);
  });

  test('spec §2.4.3: without errorMessageLimit the message is cut at 1000 characters', async () => {
    const { executor, catalog } = setup({
      handler: () => {
        throw new Error('y'.repeat(5000));
      },
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.error?.message).toHaveLength(1000);
  });
});

describe('timeouts and cancellation', () => {
  test('a hanging handler ends with E_TOOL_TIMEOUT and its signal is aborted', async () => {
    let seen: AbortSignal | undefined;
    const { executor, catalog } = setup({
      timeoutMs: 30,
      handler: (ctx) => {
        seen = ctx.signal;
        return new Promise(() => {});
      },
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.error?.code).toBe('E_TOOL_TIMEOUT');
    expect(seen?.aborted).toBe(true);
  });

  test('an answer that comes after the timeout is not read (its getters and toJSON do not run)', async () => {
    let answer!: (value: unknown) => void;
    const late = new Promise((resolve) => {
      answer = resolve;
    });
    let read = false;
    const { executor, catalog } = setup({ timeoutMs: 20, handler: () => late });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.error?.code).toBe('E_TOOL_TIMEOUT');
    answer({
      get value() {
        read = true;
        return 1;
      },
    });
    // The executor's reaction to the late answer was registered before this await, so it has run when it resumes.
    await late;
    expect(read).toBe(false);
  });

  test('cancelling the turn aborts the running handler with E_TOOL_ABORTED', async () => {
    const turn = new AbortController();
    let seen: AbortSignal | undefined;
    const { executor, catalog } = setup({
      handler: (ctx) => {
        seen = ctx.signal;
        setTimeout(() => turn.abort(), 5);
        return new Promise(() => {});
      },
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope({ signal: turn.signal }) },
    );
    expect(result.error?.code).toBe('E_TOOL_ABORTED');
    expect(seen?.aborted).toBe(true);
  });
});

describe('toolCall middleware bound', () => {
  // A chain that answers within its call's microtasks arms neither the turn's listener nor a deadline (issue 15);
  // one still running at the next turn of the event loop is bounded (the turn's cancellation answers it).
  async function run(middleware: ToolCallMiddleware, turn = new AbortController()) {
    let listeners = 0;
    const add = turn.signal.addEventListener.bind(turn.signal);
    turn.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      if (args[0] === 'abort') listeners += 1;
      add(...args);
    }) as AbortSignal['addEventListener'];
    const { executor, catalog } = setup({ middlewares: [middleware, async (ctx) => ctx.next()] });
    const result = executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope({ signal: turn.signal }) },
    );
    return { result, listeners: () => listeners };
  }

  test('pass-through layers over a handler that answers at once arm nothing', async () => {
    const { result, listeners } = await run(async (ctx) => ctx.next());
    expect((await result).status).toBe('ok');
    await new Promise((resolve) => setImmediate(resolve));
    expect(listeners()).toBe(0);
  });

  test('a layer that never answers is bounded once the loop turns: the cancellation answers E_TOOL_ABORTED', async () => {
    const turn = new AbortController();
    const { result, listeners } = await run(() => new Promise(() => {}), turn);
    await new Promise((resolve) => setImmediate(resolve));
    expect(listeners()).toBe(1);
    turn.abort();
    expect((await result).error?.code).toBe('E_TOOL_ABORTED');
  });

  test('calls answered before the loop turns leave the others bounded: each still running is answered once', async () => {
    // The middle call answers after an await (it leaves the calls waiting to be bounded first), the other two never
    // do; both must still be answered by the cancellation, and the middle one keeps its own answer.
    const turn = new AbortController();
    const audit: AuditEntry[] = [];
    const { executor, catalog } = setup({
      middlewares: [
        async (ctx) => {
          if (ctx.toolCallId === 'c2') {
            await null;
            return ctx.next();
          }
          return new Promise(() => {});
        },
      ],
    });
    const scope = { ...testScope({ signal: turn.signal }), audit: (entry: AuditEntry) => audit.push(entry) };
    const results = ['c1', 'c2', 'c3'].map((id) =>
      executor.execute({ id, name: 'echo__say', args: { text: id } }, { catalog, scope }),
    );
    expect((await results[1])?.status).toBe('ok');
    await new Promise((resolve) => setImmediate(resolve));
    turn.abort();
    const [first, , third] = await Promise.all(results);
    expect([first?.error?.code, third?.error?.code]).toEqual(['E_TOOL_ABORTED', 'E_TOOL_ABORTED']);
    expect(audit.map((entry) => `${entry.toolCallId}:${entry.status}`).sort()).toEqual([
      'c1:error',
      'c2:ok',
      'c3:error',
    ]);
  });

  test("a layer that throws after an await is the call's E_TOOL_MIDDLEWARE, audited once", async () => {
    const audit: AuditEntry[] = [];
    const { executor, catalog } = setup({
      middlewares: [
        async () => {
          await null;
          throw new Error('layer broke');
        },
      ],
    });
    const scope = { ...testScope(), audit: (entry: AuditEntry) => audit.push(entry) };
    const result = await executor.execute({ id: 'c1', name: 'echo__say', args: { text: 'x' } }, { catalog, scope });
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result.error?.message).toContain('layer broke');
    expect(audit.map((entry) => entry.errorCode)).toEqual(['E_TOOL_MIDDLEWARE']);
  });
});

describe('async handlers', () => {
  // The turn's signal is watched (and the timeout armed) only for a handler still running after its first
  // microtask; one that answered at once, or within that microtask, needs neither.
  async function run(handler: () => Promise<unknown>) {
    const turn = new AbortController();
    let listeners = 0;
    const add = turn.signal.addEventListener.bind(turn.signal);
    turn.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      if (args[0] === 'abort') listeners += 1;
      add(...args);
    }) as AbortSignal['addEventListener'];
    const { executor, catalog } = setup({ handler });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope({ signal: turn.signal }) },
    );
    return { result, listeners };
  }

  test('one that answered at once, or within one microtask, is answered without arming anything', async () => {
    const atOnce = await run(async () => ({ big: 10n }));
    expect(atOnce.result).toEqual({ status: 'ok', output: { big: '10' } });
    expect(atOnce.listeners).toBe(0);
    const soon = await run(async () => {
      await null;
      return 'soon';
    });
    expect(soon.result).toEqual({ status: 'ok', output: 'soon' });
    expect(soon.listeners).toBe(0);
    const later = await run(async () => {
      await Bun.sleep(1);
      return 'later';
    });
    expect(later.result).toEqual({ status: 'ok', output: 'later' });
    expect(later.listeners).toBe(1);
  });

  test('one that failed at once, or later, is an E_TOOL result with its message', async () => {
    const atOnce = await run(async () => {
      throw new Error('failed at once');
    });
    expect(atOnce.result.error).toMatchObject({ code: 'E_TOOL', message: 'failed at once' });
    const later = await run(async () => {
      await Bun.sleep(1);
      throw new Error('failed later');
    });
    expect(later.result.error).toMatchObject({ code: 'E_TOOL', message: 'failed later' });
    expect(later.listeners).toBe(1);
  });

  // Without middleware the answer of a handler still running is concluded as it comes (no promise of ours around
  // it): cut to the tool's error limit, audited once with its status and duration, the timing told to the caller.
  test('one still running is concluded like any call: its error cut, its audit entry written once', async () => {
    const audit: AuditEntry[] = [];
    const scope = { ...testScope(), audit: (entry: AuditEntry) => audit.push(entry) };
    const failing = setup({
      errorMessageLimit: 40,
      handler: async () => {
        await Bun.sleep(2);
        throw new Error('z'.repeat(500));
      },
    });
    const timing = { approvalWaitMs: -1 };
    const failed = await failing.executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog: failing.catalog, scope, timing },
    );
    expect(failed.status).toBe('error');
    expect(failed.error?.code).toBe('E_TOOL');
    expect(failed.error?.message.length).toBeLessThanOrEqual(40);
    expect(timing.approvalWaitMs).toBe(0);
    const answering = setup({
      handler: async () => {
        await Bun.sleep(2);
        return { done: 1n };
      },
    });
    const answered = await answering.executor.execute(
      { id: 'c2', name: 'echo__say', args: { text: 'y' } },
      { catalog: answering.catalog, scope },
    );
    expect(answered).toEqual({ status: 'ok', output: { done: '1' } });
    expect(audit.map((entry) => [entry.toolCallId, entry.status, entry.errorCode])).toEqual([
      ['c1', 'error', 'E_TOOL'],
      ['c2', 'ok', null],
    ]);
    expect(audit.every((entry) => entry.durationMs >= 1)).toBe(true);
  });
});

describe('outputs', () => {
  test('a huge output is replaced by a preview that states the truncation', async () => {
    const { executor, catalog } = setup({ outputLimit: 100, handler: () => ({ data: 'z'.repeat(10_000) }) });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    const output = result.output as Record<string, unknown>;
    expect(result.status).toBe('ok');
    expect(output.truncated).toBe(true);
    expect(output.originalChars).toBe(10_011);
    expect(String(output.preview)).toHaveLength(100);
  });

  test('non-JSON outputs (function, BigInt, cycle, undefined) do not crash', async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const { executor, catalog } = setup({
      handler: () => ({ fn: () => 1, big: 10n, cyclic, nothing: undefined, list: [undefined, Number.NaN] }),
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result).toEqual({
      status: 'ok',
      output: { big: '10', cyclic: { a: 1, self: '[Circular]' }, list: [null, null] },
    });
  });

  test('a handler returning undefined yields output null', async () => {
    const { executor, catalog } = setup({ handler: () => undefined });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result).toEqual({ status: 'ok', output: null });
  });
});

describe('pending results (spec §10.2)', () => {
  test('a submitted job answers pending with a handle at once, and polling shows completion', async () => {
    let release: (value: string) => void = () => {};
    const { executor, catalog } = setup({
      handler: (ctx) => ctx.jobs.submit(() => new Promise<string>((resolve) => (release = resolve))),
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.status).toBe('pending');
    const handle = result.handle!;
    expect(executor.jobs.poll(handle)).toEqual({ status: 'pending', handle });
    await Bun.sleep(1);
    release('done');
    await Bun.sleep(1);
    expect(executor.jobs.poll(handle)).toEqual({ status: 'ok', handle, output: 'done' });
  });

  test('a failing job is polled as an error result and completion listeners are told', async () => {
    const seen: string[] = [];
    const { executor, catalog } = setup({
      handler: (ctx) =>
        ctx.jobs.submit(async () => {
          throw new Error('job broke');
        }),
    });
    executor.jobs.onComplete((event) => seen.push(event.result.status));
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    await Bun.sleep(5);
    expect(executor.jobs.poll(result.handle!).error?.message).toBe('job broke');
    expect(seen).toEqual(['error']);
  });

  test('polling an unknown handle throws E_JOB_NOT_FOUND', () => {
    const { executor } = setup();
    expect(() => executor.jobs.poll('job_missing')).toThrow(expect.objectContaining({ code: 'E_JOB_NOT_FOUND' }));
  });
});

describe('toolCall middleware (spec §8)', () => {
  test('spec §8.3: middleware sees toolName and toolCallId, may change args, and wraps the handler', async () => {
    const order: string[] = [];
    const outer: ToolCallMiddleware = async (ctx) => {
      order.push(`outer before ${ctx.toolName} ${ctx.toolCallId}`);
      ctx.args = { ...ctx.args, text: `${ctx.args.text}!` };
      ctx.metadata.seen = true;
      const result = await ctx.next();
      order.push('outer after');
      return result;
    };
    const inner: ToolCallMiddleware = async (ctx) => {
      order.push(`inner before ${String(ctx.metadata.seen)}`);
      const result = await ctx.next();
      return { ...result, output: { wrapped: result.output ?? null } };
    };
    const { executor, catalog } = setup({ middlewares: [outer, inner] });
    const result = await executor.execute(
      { id: 'c9', name: 'echo__say', args: { text: 'hi' } },
      { catalog, scope: testScope() },
    );
    expect(result).toEqual({ status: 'ok', output: { wrapped: { said: 'hi!' } } });
    expect(order).toEqual(['outer before echo__say c9', 'inner before true', 'outer after']);
  });

  test('a middleware that throws yields E_TOOL_MIDDLEWARE instead of crashing', async () => {
    const broken: ToolCallMiddleware = async () => {
      throw new Error('extension exploded');
    };
    const { executor, catalog } = setup({ middlewares: [broken] });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result.error?.message).toBe('extension exploded');
  });

  test.each([
    ['nothing (return left out)', async (ctx: Parameters<ToolCallMiddleware>[0]) => void (await ctx.next()), 'nothing'],
    ['a string', async () => 'done', 'a string'],
    ['null', async () => null, 'null'],
    ['an error result without its error', async () => ({ status: 'error' }), 'an object of another shape'],
    ['a status it does not know', async () => ({ status: 'fine', output: 1 }), 'an object of another shape'],
    ['pending without a handle', async () => ({ status: 'pending' }), 'an object of another shape'],
  ])(
    'a middleware that resolves to %s answers E_TOOL_MIDDLEWARE saying so, and the executor does not throw',
    async (_label, layer, given) => {
      const { executor, catalog } = setup({ middlewares: [layer as unknown as ToolCallMiddleware] });
      const result = await executor.execute(
        { id: 'c1', name: 'echo__say', args: { text: 'x' } },
        { catalog, scope: testScope() },
      );
      expect(result.status).toBe('error');
      expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
      expect(result.error?.message).toContain(
        `Tool 'echo__say': a toolCall middleware resolved to ${given} instead of a tool result`,
      );
      expect(result.error?.message).toContain('return what ctx.next() resolves to');
    },
  );

  test('results of every kind a middleware may pass on are left as they are', async () => {
    const results = [
      { status: 'ok' },
      { status: 'ok', output: null },
      { status: 'error', error: { message: 'no code is fine' } },
      { status: 'pending', handle: 'job_1' },
    ] as const;
    for (const answer of results) {
      const { executor, catalog } = setup({ middlewares: [async () => answer as never] });
      const result = await executor.execute(
        { id: 'c1', name: 'echo__say', args: { text: 'x' } },
        { catalog, scope: testScope() },
      );
      expect(result).toEqual(answer as never);
    }
  });

  test('a middleware may short-circuit without calling the handler', async () => {
    let ran = false;
    const deny: ToolCallMiddleware = async () => ({ status: 'error', error: { code: 'E_TOOL', message: 'blocked' } });
    const { executor, catalog } = setup({
      middlewares: [deny],
      handler: () => {
        ran = true;
      },
    });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: { text: 'x' } },
      { catalog, scope: testScope() },
    );
    expect(result.error?.message).toBe('blocked');
    expect(ran).toBe(false);
  });
});

describe('ToolContext (spec §2.5, §7.3)', () => {
  test('carries exactly the spec fields plus signal, jobs and config, and no v1 fields (spec §2.5.3)', async () => {
    let context: ToolContext | undefined;
    const scope = testScope({ workdir: '/work/instance', agentName: 'coder', instanceKey: 'k1', turnId: 't7' });
    const { executor, catalog } = setup({
      handler: (ctx) => {
        context = ctx;
        return null;
      },
    });
    await executor.execute({ id: 'call_42', name: 'echo__say', args: { text: 'x' } }, { catalog, scope });
    // Own fields: the spec's and config; signal and jobs are made on first read (getters of the context's class).
    expect(Object.keys(context!).sort()).toEqual(
      ['agentName', 'config', 'instanceKey', 'logger', 'message', 'toolCallId', 'turnId', 'workdir'].sort(),
    );
    expect('signal' in context! && 'jobs' in context!).toBe(true);
    expect(context!.signal).toBeInstanceOf(AbortSignal);
    expect(typeof context!.jobs.submit).toBe('function');
    // A context derived with Object.create keeps them (a spread copy has the fields only).
    const derived = Object.assign(Object.create(context!) as ToolContext, { workdir: '/elsewhere' });
    expect(derived.signal).toBe(context!.signal);
    expect(derived.workdir).toBe('/elsewhere');
    expect(JSON.stringify(context)).not.toContain('signal');
    expect(context).not.toHaveProperty('swarmBundle');
    expect(context).not.toHaveProperty('oauth');
    expect(context!.workdir).toBe('/work/instance');
    expect(context!.toolCallId).toBe('call_42');
    expect(context!.message).toBe(scope.message);
    expect(context!.turnId).toBe('t7');
  });
});

describe('schemas registered at run time', () => {
  test('a parameters schema that cannot compile fails the call with E_SCHEMA_INVALID instead of throwing', async () => {
    const broken: ToolCatalogItem = {
      name: 'odd__run',
      parameters: {
        type: 'object',
        properties: { value: { type: 'nonsense' } },
      } as unknown as ToolCatalogItem['parameters'],
      source: { type: 'extension', name: 'odd' },
    };
    const registry = registryWith([{ item: broken, handler: () => 'ran' }]);
    const executor = new ToolExecutor({ registry });
    const result = await executor.execute(
      { id: 'c1', name: 'odd__run', args: { value: 1 } },
      { catalog: new ToolCatalog([broken]), scope: testScope() },
    );
    expect(result.error?.code).toBe('E_SCHEMA_INVALID');
    expect(result.error?.message).toContain('odd__run');
  });
});
