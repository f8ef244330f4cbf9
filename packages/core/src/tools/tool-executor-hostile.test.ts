// A hostile probe of the executor's toolCall middleware path (tool-executor.ts, bounded-middleware-chain.ts): layers
// that misuse next(), answer with things that are not results, throw from odd places, and thousands of calls that
// answer, hang and are cancelled in random order. Whatever a layer does, every call is answered exactly once, as a
// result (never a throw or a rejection), audited exactly once, and leaves no abort listener behind.
import { describe, expect, test } from 'bun:test';
import type { ApprovalGate, ApprovalResolution } from '../permissions/approvals.ts';
import { PermissionPolicy } from '../permissions/permission-policy.ts';
import type { AuditEntry } from '../permissions/permission-types.ts';
import type { ToolCallMiddleware, ToolCatalogItem, ToolHandler, ToolResult } from '../types.ts';
import type { CallScope } from './call-scope.ts';
import { registryWith, testScope } from './test-support.ts';
import { ToolCatalog } from './tool-catalog.ts';
import { ToolExecutor } from './tool-executor.ts';

const item: ToolCatalogItem = { name: 'probe__go', source: { type: 'config', name: 'probe' } };

/** A promise and its resolver, for a test to decide when something happens. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** An abort signal that counts the abort listeners it holds: added, less removed and fired. */
function countedSignal() {
  const controller = new AbortController();
  const signal = controller.signal;
  const wrappers = new Map<unknown, () => void>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: () => void, options?: AddEventListenerOptions) => {
    if (type !== 'abort') return add(type, listener, options);
    const wrapper = () => {
      wrappers.delete(listener);
      listener();
    };
    wrappers.set(listener, wrapper);
    add(type, wrapper, options);
  }) as AbortSignal['addEventListener'];
  signal.removeEventListener = ((type: string, listener: () => void) => {
    if (type !== 'abort') return remove(type, listener);
    const wrapper = wrappers.get(listener);
    wrappers.delete(listener);
    if (wrapper) remove(type, wrapper);
  }) as AbortSignal['removeEventListener'];
  return { controller, signal, held: () => wrappers.size };
}

function setup(
  options: {
    handler?: ToolHandler;
    middlewares?: ToolCallMiddleware[];
    timeoutMs?: number;
    permissions?: PermissionPolicy;
    category?: 'safe' | 'sensitive' | 'restricted';
  } = {},
) {
  const started: string[] = [];
  const handler: ToolHandler =
    options.handler ??
    ((ctx) => {
      started.push(ctx.toolCallId);
      return 'ran';
    });
  const registry = registryWith([
    {
      item,
      handler: (ctx, input) => {
        if (options.handler) started.push(ctx.toolCallId);
        return handler(ctx, input);
      },
      options: { timeoutMs: options.timeoutMs, category: options.category ?? 'safe' },
    },
  ]);
  const executor = new ToolExecutor({ registry, middlewares: options.middlewares, permissions: options.permissions });
  const catalog = new ToolCatalog([item]);
  const audit: AuditEntry[] = [];
  const call = (id: string, scope: Partial<CallScope> = {}): Promise<ToolResult> =>
    executor.execute(
      { id, name: item.name, args: {} },
      { catalog, scope: { ...testScope(), audit: (entry) => audit.push(entry), ...scope } },
    );
  return { executor, catalog, audit, started, call };
}

/** Calls execute and checks it neither threw nor rejected: the call is answered with a result. */
async function answered(run: () => Promise<ToolResult>): Promise<ToolResult> {
  let promise: Promise<ToolResult>;
  try {
    promise = run();
  } catch (thrown) {
    throw new Error(`execute threw synchronously: ${String(thrown)}`);
  }
  return promise.then(
    (result) => result,
    (thrown) => {
      throw new Error(`execute rejected: ${String(thrown)}`);
    },
  );
}

describe('a middleware that misuses next()', () => {
  test('next() twice in a row: the second is refused, the handler runs once, the call is E_TOOL_MIDDLEWARE', async () => {
    const { call, started, audit } = setup({
      middlewares: [
        async (ctx) => {
          await ctx.next();
          return ctx.next();
        },
      ],
    });
    const result = await answered(() => call('c1'));
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result.error?.message).toContain('next() called more than once');
    expect(started).toEqual(['c1']);
    expect(audit).toHaveLength(1);
  });

  test('next() twice at once: the handler runs once', async () => {
    const { call, started } = setup({
      middlewares: [async (ctx) => (await Promise.all([ctx.next(), ctx.next()]))[0]],
    });
    const result = await answered(() => call('c1'));
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(started).toEqual(['c1']);
  });

  test('next() after the call timed out resolves E_TOOL_ABORTED and does not start the handler', async () => {
    const release = gate();
    const late = gate<ToolResult>();
    const { call, started, audit } = setup({
      timeoutMs: 30,
      middlewares: [
        async (ctx) => {
          await release.promise;
          late.open(await ctx.next());
          return { status: 'ok', output: 'too late' };
        },
      ],
    });
    const result = await answered(() => call('c1'));
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result.error?.message).toContain('did not answer within 30 ms');
    release.open();
    expect((await late.promise).error?.code).toBe('E_TOOL_ABORTED');
    expect(started).toEqual([]);
    expect(audit.map((entry) => entry.errorCode)).toEqual(['E_TOOL_MIDDLEWARE']);
  });

  test('next() after the turn was cancelled does not start the handler', async () => {
    const release = gate();
    const late = gate<ToolResult>();
    const turn = countedSignal();
    const { call, started, audit } = setup({
      middlewares: [
        async (ctx) => {
          await release.promise;
          late.open(await ctx.next());
          return { status: 'ok', output: 'too late' };
        },
      ],
    });
    const pending = answered(() => call('c1', { signal: turn.signal }));
    await new Promise((resolve) => setImmediate(resolve));
    turn.controller.abort();
    expect((await pending).error?.code).toBe('E_TOOL_ABORTED');
    release.open();
    expect((await late.promise).error?.code).toBe('E_TOOL_ABORTED');
    expect(started).toEqual([]);
    expect(audit).toHaveLength(1);
    expect(turn.held()).toBe(0);
  });

  test('a sync layer that answers at once and calls next() later does not start the handler', async () => {
    const late = gate<ToolResult>();
    const { call, started } = setup({
      middlewares: [
        ((ctx: Parameters<ToolCallMiddleware>[0]) => {
          setImmediate(() => ctx.next().then(late.open));
          return { status: 'ok', output: 'mine' };
        }) as unknown as ToolCallMiddleware,
      ],
    });
    expect(await answered(() => call('c1'))).toEqual({ status: 'ok', output: 'mine' });
    expect((await late.promise).error?.code).toBe('E_TOOL_ABORTED');
    expect(started).toEqual([]);
  });

  test('an async layer that answers and calls next() later does not start the handler', async () => {
    const late = gate<ToolResult>();
    const { call, started } = setup({
      middlewares: [
        async (ctx) => {
          setImmediate(() => ctx.next().then(late.open));
          return { status: 'ok', output: 'mine' };
        },
      ],
    });
    expect(await answered(() => call('c1'))).toEqual({ status: 'ok', output: 'mine' });
    expect((await late.promise).error?.code).toBe('E_TOOL_ABORTED');
    expect(started).toEqual([]);
  });

  test('an async layer that queues next() in a microtask and returns at once does not start the handler', async () => {
    const late = gate<ToolResult>();
    const { call, started } = setup({
      middlewares: [
        async (ctx) => {
          queueMicrotask(() => void ctx.next().then(late.open));
          return { status: 'ok', output: 'mine' };
        },
      ],
    });
    expect(await answered(() => call('c1'))).toEqual({ status: 'ok', output: 'mine' });
    expect((await late.promise).error?.code).toBe('E_TOOL_ABORTED');
    expect(started).toEqual([]);
  });
});

describe('a middleware that answers with something other than a result', () => {
  const cases: [string, ToolCallMiddleware, string][] = [
    ['undefined', (async () => undefined) as unknown as ToolCallMiddleware, 'resolved to nothing'],
    ['a string', (async () => 'done') as unknown as ToolCallMiddleware, 'resolved to a string'],
    ['null, sync', (() => null) as unknown as ToolCallMiddleware, 'resolved to null'],
    ['an array', (async () => []) as unknown as ToolCallMiddleware, 'resolved to an array'],
    [
      'an error without a message',
      (async () => ({ status: 'error', error: { code: 'E_TOOL' } })) as unknown as ToolCallMiddleware,
      'an object of another shape',
    ],
  ];
  for (const [what, middleware, message] of cases) {
    test(`${what} is E_TOOL_MIDDLEWARE saying so`, async () => {
      const { call, audit } = setup({ middlewares: [middleware] });
      const result = await answered(() => call('c1'));
      expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
      expect(result.error?.message).toContain(message);
      expect(audit).toHaveLength(1);
    });
  }

  const rejections: [string, unknown, string][] = [
    ['a string', 'plain words', 'plain words'],
    ['undefined', undefined, 'threw undefined'],
    ['null', null, 'threw null'],
    ['an object', { why: 1n }, '{"why":"1"}'],
    ['a symbol', Symbol('odd'), 'Symbol(odd)'],
  ];
  for (const [what, reason, message] of rejections) {
    test(`a rejection with ${what} is E_TOOL_MIDDLEWARE`, async () => {
      const { call, audit } = setup({
        middlewares: [
          async (ctx) => {
            await ctx.next();
            throw reason;
          },
        ],
      });
      const result = await answered(() => call('c1'));
      expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
      expect(result.error?.message).toContain(message);
      expect(audit).toHaveLength(1);
    });
  }

  test('a rejection with an object whose message getter throws is still a result', async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    const { call, audit } = setup({ middlewares: [() => Promise.reject(hostile)] });
    const result = await answered(() => call('c1'));
    expect(result.status).toBe('error');
    expect(audit).toHaveLength(1);
  });

  test('a sync throw of a non-Error from a layer that is not async is E_TOOL_MIDDLEWARE', async () => {
    const { call, audit } = setup({
      middlewares: [
        () => {
          throw 42;
        },
      ],
    });
    const result = await answered(() => call('c1'));
    expect(result.error).toMatchObject({ code: 'E_TOOL_MIDDLEWARE', message: '42' });
    expect(audit).toHaveLength(1);
  });

  const hostileResults: [string, () => unknown][] = [
    [
      'a status getter that throws',
      () => ({
        get status() {
          throw new Error('status trap');
        },
      }),
    ],
    [
      'an ok result whose error getter throws',
      () => ({
        status: 'ok',
        get error() {
          throw new Error('error trap');
        },
      }),
    ],
    [
      'a pending result whose handle getter throws on the second read',
      () => {
        let reads = 0;
        return {
          status: 'pending',
          get handle() {
            reads += 1;
            if (reads > 1) throw new Error('handle trap');
            return 'job_1';
          },
        };
      },
    ],
    [
      'a Proxy whose every trap throws',
      () =>
        new Proxy(
          {},
          {
            get() {
              throw new Error('get trap');
            },
          },
        ),
    ],
    [
      'a revoked Proxy',
      () => {
        const { proxy, revoke } = Proxy.revocable({ status: 'ok' }, {});
        revoke();
        return proxy;
      },
    ],
  ];
  for (const [what, make] of hostileResults) {
    for (const sync of [false, true]) {
      test(`${what} (${sync ? 'sync' : 'async'} layer) is answered with a result, audited once`, async () => {
        const middleware = (sync ? () => make() : async () => make()) as unknown as ToolCallMiddleware;
        const { call, audit } = setup({ middlewares: [middleware] });
        const result = await answered(() => call('c1'));
        // The answer is a plain result the loop can read and store.
        expect(['ok', 'error', 'pending']).toContain(result.status);
        expect(() => JSON.stringify(result)).not.toThrow();
        expect(audit).toHaveLength(1);
      });
    }
  }

  test('an ok result with BigInt and cycles in its output is made JSON-safe', async () => {
    const cycle: Record<string, unknown> = { big: 10n };
    cycle.self = cycle;
    const { call, audit } = setup({ middlewares: [async () => ({ status: 'ok', output: cycle as never })] });
    const result = await answered(() => call('c1'));
    expect(result).toEqual({ status: 'ok', output: { big: '10', self: '[Circular]' } });
    expect(audit[0]?.output).toEqual({ big: '10', self: '[Circular]' });
  });

  test('a Proxy result that reads as a result is answered as a plain one', async () => {
    const proxy = new Proxy({ status: 'ok', output: { n: 1 } }, {});
    const { call } = setup({ middlewares: [async () => proxy as ToolResult] });
    const result = await answered(() => call('c1'));
    expect(result).toEqual({ status: 'ok', output: { n: 1 } });
  });

  test('a thenable that is not a promise is followed like one', async () => {
    const { call, audit } = setup({
      middlewares: [
        ((ctx: Parameters<ToolCallMiddleware>[0]) => ({
          // biome-ignore lint/suspicious/noThenProperty: the point of the test
          then(resolve: (value: ToolResult) => void, reject: (thrown: unknown) => void) {
            ctx.next().then(resolve, reject);
          },
        })) as unknown as ToolCallMiddleware,
      ],
    });
    expect(await answered(() => call('c1'))).toEqual({ status: 'ok', output: 'ran' });
    expect(audit).toHaveLength(1);
  });

  test('a thenable whose then() throws is E_TOOL_MIDDLEWARE, audited once', async () => {
    const { call, audit, started } = setup({
      middlewares: [
        (() => ({
          // biome-ignore lint/suspicious/noThenProperty: the point of the test
          then() {
            throw new Error('then broke');
          },
        })) as unknown as ToolCallMiddleware,
      ],
    });
    const result = await answered(() => call('c1'));
    expect(result.error).toMatchObject({ code: 'E_TOOL_MIDDLEWARE', message: 'then broke' });
    expect(audit).toHaveLength(1);
    expect(started).toEqual([]);
  });

  test('a thenable that calls back twice, and both ways, answers once', async () => {
    const { call, audit } = setup({
      middlewares: [
        (() => ({
          // biome-ignore lint/suspicious/noThenProperty: the point of the test
          then(resolve: (value: ToolResult) => void, reject: (thrown: unknown) => void) {
            resolve({ status: 'ok', output: 1 });
            resolve({ status: 'ok', output: 2 });
            reject(new Error('and rejected'));
          },
        })) as unknown as ToolCallMiddleware,
      ],
    });
    expect(await answered(() => call('c1'))).toEqual({ status: 'ok', output: 1 });
    expect(audit).toHaveLength(1);
  });
});

describe('a result a middleware built is capped to the tool outputLimit', () => {
  function capped(middleware: ToolCallMiddleware, handler?: ToolHandler) {
    const registry = registryWith([{ item, handler: handler ?? (() => 'ran'), options: { outputLimit: 50 } }]);
    const executor = new ToolExecutor({ registry, middlewares: [middleware] });
    return executor.execute(
      { id: 'c1', name: item.name, args: {} },
      { catalog: new ToolCatalog([item]), scope: testScope() },
    );
  }

  test('an output of its own, a string or an object, longer than the limit is a preview that says so', async () => {
    const long = await capped(async () => ({ status: 'ok', output: 'x'.repeat(500) }));
    expect(long.output).toMatchObject({ truncated: true, originalChars: 502, limitChars: 50 });
    expect(String((long.output as { preview: string }).preview).length).toBe(50);
    const object = await capped(async (ctx) => {
      await ctx.next();
      return { status: 'ok', output: { rows: Array.from({ length: 100 }, (_, index) => index) } };
    });
    expect(object.output).toMatchObject({ truncated: true, limitChars: 50 });
  });

  test("the handler's output replaced in place is capped too", async () => {
    const result = await capped(async (ctx) => {
      const answer = await ctx.next();
      (answer as { output: unknown }).output = 'y'.repeat(80);
      return answer;
    });
    expect(result.output).toMatchObject({ truncated: true, originalChars: 82 });
  });

  test("the handler's own output passes as it was capped, and a short output of the layer's own is kept", async () => {
    const own = await capped(
      async (ctx) => ({ ...(await ctx.next()), status: 'ok' }),
      async () => {
        await null;
        return 'z'.repeat(500);
      },
    );
    expect(own.output).toMatchObject({ truncated: true, originalChars: 502, limitChars: 50 });
    expect(await capped(async () => ({ status: 'ok', output: 'short' }))).toEqual({ status: 'ok', output: 'short' });
  });
});

describe('a middleware that changes what next() resolved to', () => {
  test('output replaced by a BigInt, or made cyclic, is made JSON-safe; a status broken is refused', async () => {
    const { call } = setup({
      middlewares: [
        async (ctx) => {
          const result = await ctx.next();
          if (ctx.toolCallId === 'big') (result as { output: unknown }).output = 5n;
          if (ctx.toolCallId === 'cycle') {
            const output: Record<string, unknown> = {};
            output.me = output;
            (result as { output: unknown }).output = output;
          }
          if (ctx.toolCallId === 'status') (result as { status: string }).status = 'done';
          return result;
        },
      ],
    });
    expect(await answered(() => call('big'))).toEqual({ status: 'ok', output: '5' });
    expect(await answered(() => call('cycle'))).toEqual({ status: 'ok', output: { me: '[Circular]' } });
    expect((await answered(() => call('status'))).error?.code).toBe('E_TOOL_MIDDLEWARE');
    // One call's changes are its own.
    expect(await answered(() => call('plain'))).toEqual({ status: 'ok', output: 'ran' });
  });
});

describe('the audit callback', () => {
  test('one that throws does not lose the result, and is logged', async () => {
    const warned: string[] = [];
    const { call } = setup({ middlewares: [async (ctx) => ctx.next()] });
    const logger = { ...console, warn: (line: string) => warned.push(line) } as Console;
    const audit = () => {
      throw new Error('disk full');
    };
    expect(await answered(() => call('c1', { audit, logger }))).toEqual({ status: 'ok', output: 'ran' });
    expect(warned).toEqual(['audit write failed: disk full']);
  });

  test('one that throws something unreadable, with a logger that throws too, does not lose the result', async () => {
    const unreadable = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    const logger = {
      ...console,
      warn: () => {
        throw new Error('logger broke');
      },
    } as Console;
    const audit = () => {
      throw unreadable;
    };
    for (const middlewares of [[], [async (ctx) => ctx.next()] as ToolCallMiddleware[]]) {
      const { call } = setup({ middlewares });
      expect(await answered(() => call('c1', { audit, logger }))).toEqual({ status: 'ok', output: 'ran' });
    }
  });
});

describe('a result that is a class instance (its fields getters on the prototype)', () => {
  class Answer {
    constructor(
      private readonly kind: 'ok' | 'error',
      private readonly value: unknown,
    ) {}
    get status() {
      return this.kind;
    }
    get output() {
      return this.kind === 'ok' ? this.value : undefined;
    }
    get error() {
      return this.kind === 'error' ? { code: 'E_TOOL', message: String(this.value) } : undefined;
    }
  }
  for (const [kind, value, expected] of [
    ['ok', { n: 1 }, { status: 'ok', output: { n: 1 } }],
    ['ok', 7, { status: 'ok', output: 7 }],
    ['error', 'refused', { status: 'error', error: { code: 'E_TOOL', message: 'refused' } }],
  ] as const) {
    test(`${kind} with ${JSON.stringify(value)} keeps its status`, async () => {
      const { call, audit } = setup({ middlewares: [async () => new Answer(kind, value) as unknown as ToolResult] });
      const result = await answered(() => call('c1'));
      expect(JSON.parse(JSON.stringify(result))).toEqual(expected);
      expect(audit[0]?.status).toBe(kind);
    });
  }
});

describe('a call that needs approval, with middleware', () => {
  const approved: ApprovalResolution = { outcome: 'approved', id: 'ap_1', scope: 'once', by: 'tester', reason: null };
  const approve = (resolution = approved): ApprovalGate => ({ request: async () => resolution });
  const asks = () => new PermissionPolicy({ sensitive: 'ask' });

  test('approved: the layers run around the handler, audited once with the approval', async () => {
    const seen: string[] = [];
    const { call, audit, started } = setup({
      category: 'sensitive',
      permissions: asks(),
      middlewares: [
        async (ctx) => {
          seen.push('outer');
          return ctx.next();
        },
      ],
    });
    const result = await answered(() => call('c1', { approvals: approve() }));
    expect(result).toEqual({ status: 'ok', output: 'ran' });
    expect(seen).toEqual(['outer']);
    expect(started).toEqual(['c1']);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ decision: 'ask', approval: { outcome: 'approved' } });
  });

  test('denied: no layer runs', async () => {
    const seen: string[] = [];
    const { call, audit, started } = setup({
      category: 'sensitive',
      permissions: asks(),
      middlewares: [
        async (ctx) => {
          seen.push('outer');
          return ctx.next();
        },
      ],
    });
    const denied: ApprovalResolution = { ...approved, outcome: 'denied' };
    const result = await answered(() => call('c1', { approvals: approve(denied) }));
    expect(result.error?.code).toBe('E_APPROVAL_DENIED');
    expect([seen, started, audit.length]).toEqual([[], [], 1]);
  });

  test('a gate that throws something unreadable is still a result', async () => {
    const { call, audit } = setup({
      category: 'sensitive',
      permissions: asks(),
      middlewares: [async (ctx) => ctx.next()],
    });
    const unreadable = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    const gate: ApprovalGate = { request: () => Promise.reject(unreadable) };
    const result = await answered(() => call('c1', { approvals: gate }));
    expect(result.status).toBe('error');
    expect(audit).toHaveLength(1);
  });

  test('an approved call whose layer hangs is answered by the cancellation, and leaves no listener', async () => {
    const turn = countedSignal();
    const entered = gate();
    const { call, audit } = setup({
      category: 'sensitive',
      permissions: asks(),
      middlewares: [
        () => {
          entered.open();
          return new Promise(() => {});
        },
      ],
    });
    const pending = answered(() => call('c1', { approvals: approve(), signal: turn.signal }));
    await entered.promise;
    await new Promise((resolve) => setImmediate(resolve));
    turn.controller.abort();
    expect((await pending).error?.code).toBe('E_TOOL_ABORTED');
    expect(audit).toHaveLength(1);
    expect(turn.held()).toBe(0);
  });

  test('an approved call whose layer answers and calls next() later does not start the handler', async () => {
    const late = gate<ToolResult>();
    const { call, started } = setup({
      category: 'sensitive',
      permissions: asks(),
      middlewares: [
        async (ctx) => {
          setImmediate(() => ctx.next().then(late.open));
          return { status: 'ok', output: 'mine' };
        },
      ],
    });
    expect(await answered(() => call('c1', { approvals: approve() }))).toEqual({ status: 'ok', output: 'mine' });
    expect((await late.promise).error?.code).toBe('E_TOOL_ABORTED');
    expect(started).toEqual([]);
  });

  test('an approved call whose layer returns a thenable that never calls back is bounded', async () => {
    const { call, audit } = setup({
      category: 'sensitive',
      permissions: asks(),
      timeoutMs: 30,
      // biome-ignore lint/suspicious/noThenProperty: the point of the test
      middlewares: [(() => ({ then() {} })) as unknown as ToolCallMiddleware],
    });
    const result = await answered(() => call('c1', { approvals: approve() }));
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(audit).toHaveLength(1);
  });
});

describe('cancellation and timeouts under middleware', () => {
  test('cancelled before the call: the layer runs, the handler does not start, E_TOOL_ABORTED', async () => {
    const turn = countedSignal();
    turn.controller.abort();
    const { call, started, audit } = setup({ middlewares: [async (ctx) => ctx.next()] });
    expect((await answered(() => call('c1', { signal: turn.signal }))).error?.code).toBe('E_TOOL_ABORTED');
    expect([started, audit.length, turn.held()]).toEqual([[], 1, 0]);
  });

  test('cancelled while the handler runs: E_TOOL_ABORTED through next(), the layer sees it', async () => {
    const turn = countedSignal();
    const running = gate();
    const seen: (string | undefined)[] = [];
    const { call, audit } = setup({
      handler: (ctx) => {
        running.open();
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('ignored')));
      },
      middlewares: [
        async (ctx) => {
          const result = await ctx.next();
          seen.push(result.error?.code);
          return result;
        },
      ],
    });
    const pending = answered(() => call('c1', { signal: turn.signal }));
    await running.promise;
    await new Promise((resolve) => setImmediate(resolve));
    turn.controller.abort();
    expect((await pending).error?.code).toBe('E_TOOL_ABORTED');
    expect(seen).toEqual(['E_TOOL_ABORTED']);
    expect([audit.length, turn.held()]).toEqual([1, 0]);
  });

  test('cancelled after the handler answered, while a layer still works: E_TOOL_ABORTED', async () => {
    const turn = countedSignal();
    const handled = gate();
    const { call, audit } = setup({
      middlewares: [
        async (ctx) => {
          await ctx.next();
          handled.open();
          return new Promise(() => {});
        },
      ],
    });
    const pending = answered(() => call('c1', { signal: turn.signal }));
    await handled.promise;
    await new Promise((resolve) => setImmediate(resolve));
    turn.controller.abort();
    expect((await pending).error?.code).toBe('E_TOOL_ABORTED');
    expect([audit.length, turn.held()]).toEqual([1, 0]);
  });

  test('cancelled after the call was answered: nothing changes, nothing is left listening', async () => {
    const turn = countedSignal();
    const { call, audit } = setup({
      handler: async () => {
        await Bun.sleep(1);
        return 'slow';
      },
      middlewares: [async (ctx) => ctx.next()],
    });
    expect(await answered(() => call('c1', { signal: turn.signal }))).toEqual({ status: 'ok', output: 'slow' });
    turn.controller.abort();
    expect([audit.length, turn.held()]).toEqual([1, 0]);
  });

  test("a handler's timeout arrives through next() as E_TOOL_TIMEOUT; the layer's own time starts after it", async () => {
    const seen: (string | undefined)[] = [];
    const { call, audit } = setup({
      timeoutMs: 40,
      handler: () => new Promise(() => {}),
      middlewares: [
        async (ctx) => {
          const result = await ctx.next();
          seen.push(result.error?.code);
          return result;
        },
      ],
    });
    expect((await answered(() => call('c1'))).error?.code).toBe('E_TOOL_TIMEOUT');
    expect([seen, audit.length]).toEqual([['E_TOOL_TIMEOUT'], 1]);
  });

  test("a handler that throws at once, under a layer, is E_TOOL (not the layer's E_TOOL_MIDDLEWARE)", async () => {
    const { call } = setup({
      handler: () => {
        throw new RangeError('bad input');
      },
      middlewares: [async (ctx) => ctx.next()],
    });
    expect((await answered(() => call('c1'))).error).toMatchObject({ code: 'E_TOOL', message: 'bad input' });
  });
});

describe('thousands of calls answering, hanging and cancelled in random order', () => {
  /** A small seeded generator, so a failure can be run again. */
  function random(seed: number) {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const layerKinds = [
    'pass',
    'microtasks',
    'gate-before',
    'gate-after',
    'hang',
    'throw-before',
    'throw-after',
    'own',
    'own-sync',
    'own-then-late-next',
    'own-sync-then-late-next',
    'next-twice',
    'undefined',
  ] as const;
  const handlerKinds = ['sync', 'async-at-once', 'async-gated', 'hang-until-aborted', 'throw'] as const;
  type LayerKind = (typeof layerKinds)[number];
  type HandlerKind = (typeof handlerKinds)[number];

  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: every call answered once, audited once, no handler after its answer, no listener left`, async () => {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
      const count = 2_000;
      const plans = new Map<string, { layer: LayerKind; handler: HandlerKind; turn: number; ticks: number }>();
      const gates: (() => void)[] = [];
      const hold = () => {
        const { promise, open } = gate();
        gates.push(open);
        return promise;
      };
      const started = new Map<string, number>();
      const audited = new Map<string, number>();
      const lateStarts: string[] = [];
      const lateNexts: Promise<ToolResult>[] = [];
      const turns = Array.from({ length: 16 }, () => countedSignal());
      const abortedTurns = 12;

      const handler: ToolHandler = (ctx) => {
        const id = ctx.toolCallId;
        started.set(id, (started.get(id) ?? 0) + 1);
        if (audited.has(id)) lateStarts.push(id);
        switch (plans.get(id)!.handler) {
          case 'sync':
            return id;
          case 'async-at-once':
            return Promise.resolve(id);
          case 'async-gated':
            return hold().then(() => id);
          case 'hang-until-aborted':
            return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('after abort')));
          case 'throw':
            throw new Error(`handler ${id} threw`);
        }
      };
      const argsSeen: WeakRef<object>[] = [];
      const layer: ToolCallMiddleware = (ctx) => {
        argsSeen.push(new WeakRef(ctx.args));
        const plan = plans.get(ctx.toolCallId)!;
        const microtasks = async () => {
          for (let i = 0; i < plan.ticks; i += 1) await null;
        };
        switch (plan.layer) {
          case 'pass':
            return ctx.next();
          case 'microtasks':
            return (async () => {
              await microtasks();
              const result = await ctx.next();
              await microtasks();
              return result;
            })();
          case 'gate-before':
            return hold().then(() => ctx.next());
          case 'gate-after':
            return ctx.next().then(async (result) => {
              await hold();
              return result;
            });
          case 'hang':
            return new Promise(() => {});
          case 'throw-before':
            throw new Error('layer threw');
          case 'throw-after':
            return ctx.next().then(() => Promise.reject(new Error('layer threw after')));
          case 'own':
            return microtasks().then(() => ({ status: 'ok', output: 'own' }));
          case 'own-sync':
            return { status: 'ok', output: 'own' } as unknown as Promise<ToolResult>;
          case 'own-then-late-next':
            lateNexts.push(hold().then(() => ctx.next()));
            return Promise.resolve({ status: 'ok', output: 'own' });
          case 'own-sync-then-late-next':
            lateNexts.push(hold().then(() => ctx.next()));
            return { status: 'ok', output: 'own' } as unknown as Promise<ToolResult>;
          case 'next-twice':
            return ctx.next().then(() => ctx.next());
          case 'undefined':
            return ctx.next().then(() => undefined as unknown as ToolResult);
        }
      };
      const registry = registryWith([{ item, handler, options: { timeoutMs: 60_000 } }]);
      const executor = new ToolExecutor({ registry, middlewares: [layer, async (ctx) => ctx.next()] });
      const catalog = new ToolCatalog([item]);

      const results: Promise<ToolResult>[] = [];
      const answeredIds = new Map<string, number>();
      for (let index = 0; index < count; index += 1) {
        const id = `c${index}`;
        // A layer or handler that never answers of itself is ended by the cancellation of its turn.
        // Calls of the last turns (never cancelled) answer of themselves: their listeners must go when they do.
        const turn = Math.floor(next() * turns.length);
        const plan = {
          layer: pick(turn < abortedTurns ? layerKinds : layerKinds.filter((kind) => kind !== 'hang')),
          handler: pick(
            turn < abortedTurns ? handlerKinds : handlerKinds.filter((kind) => kind !== 'hang-until-aborted'),
          ),
          turn,
          ticks: Math.floor(next() * 4),
        };
        plans.set(id, plan);
        const scope: CallScope = {
          ...testScope({ signal: turns[plan.turn]!.signal }),
          audit: (entry) => audited.set(entry.toolCallId, (audited.get(entry.toolCallId) ?? 0) + 1),
        };
        const result = answered(() => executor.execute({ id, name: item.name, args: {} }, { catalog, scope }));
        results.push(
          result.then((value) => {
            answeredIds.set(id, (answeredIds.get(id) ?? 0) + 1);
            return value;
          }),
        );
        // Now and then the loop turns, so some calls are bounded and others not yet.
        if (next() < 0.01) await new Promise((resolve) => setImmediate(resolve));
      }
      // Gates open in random order, turns are cancelled at random points between them.
      const abortAt = new Set(turns.slice(0, abortedTurns).map(() => Math.floor(next() * (gates.length + 1))));
      let aborted = 0;
      for (let opened = 0; gates.length > 0 || aborted < abortedTurns; opened += 1) {
        if ((abortAt.has(opened) || gates.length === 0) && aborted < abortedTurns) {
          turns[aborted]!.controller.abort();
          aborted += 1;
        }
        if (gates.length > 0) {
          const [open] = gates.splice(Math.floor(next() * gates.length), 1);
          open!();
        }
        const pause = next();
        if (pause < 0.3) await null;
        else if (pause < 0.4) await new Promise((resolve) => setImmediate(resolve));
      }
      const settled = await Promise.all(results);
      // Gates opened by the last answers (a late next() behind a gate) are opened too.
      while (gates.length > 0) gates.shift()!();
      const late = await Promise.all(lateNexts);

      for (const result of settled) expect(['ok', 'error', 'pending']).toContain(result.status);
      expect([...answeredIds.values()].every((times) => times === 1)).toBe(true);
      expect(answeredIds.size).toBe(count);
      expect(audited.size).toBe(count);
      expect([...audited.values()].filter((times) => times !== 1)).toEqual([]);
      expect([...started.values()].filter((times) => times !== 1)).toEqual([]);
      expect(lateStarts).toEqual([]);
      expect(late.every((result) => result.error?.code === 'E_TOOL_ABORTED')).toBe(true);
      expect(turns.map((turn) => turn.held())).toEqual(turns.map(() => 0));
      // Nothing holds the answered calls (the bound's waiting list, a deadline, a listener): their arguments, held
      // by each call's record and state, are collected (a few may stay, the collector scans the stack).
      await new Promise((resolve) => setImmediate(resolve));
      Bun.gc(true);
      expect(argsSeen.filter((ref) => ref.deref() !== undefined).length).toBeLessThan(count / 20);
      // Each call's answer is the one its plan leads to.
      settled.forEach((result, index) => {
        const plan = plans.get(`c${index}`)!;
        if (plan.layer.startsWith('own')) {
          expect(result).toEqual({ status: 'ok', output: 'own' });
        } else if (['throw-before', 'throw-after', 'next-twice', 'undefined'].includes(plan.layer)) {
          expect(result.error?.code === 'E_TOOL_MIDDLEWARE' || result.error?.code === 'E_TOOL_ABORTED').toBe(true);
        } else if (plan.layer === 'hang') {
          expect(result.error?.code).toBe('E_TOOL_ABORTED');
        }
      });
    }, 60_000);
  }
});

describe('a handler or job that throws something unreadable', () => {
  const unreadable = () =>
    new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
  const handlers: [string, ToolHandler][] = [
    [
      'throws it at once',
      () => {
        throw unreadable();
      },
    ],
    ['rejects with it at once', () => Promise.reject(unreadable())],
    [
      'rejects with it later',
      async () => {
        await Bun.sleep(1);
        throw unreadable();
      },
    ],
  ];
  for (const [what, handler] of handlers) {
    for (const middlewares of [[], [async (ctx) => ctx.next()] as ToolCallMiddleware[]]) {
      test(`one that ${what} is E_TOOL at once (${middlewares.length} layers), not a timeout`, async () => {
        // The timeout is far longer than the test's: a call that waited for it would fail the test.
        const { call, audit } = setup({ handler, middlewares, timeoutMs: 600_000 });
        const result = await answered(() => call('c1'));
        expect(result.error?.code).toBe('E_TOOL');
        expect(result.error?.message).toContain('could not be read');
        expect(audit).toHaveLength(1);
      });
    }
  }

  test('a job that rejects with it is polled as an error', async () => {
    const failed = gate<void>();
    const { call, executor } = setup({
      handler: (ctx) =>
        ctx.jobs.submit(async () => {
          await null;
          failed.open();
          throw unreadable();
        }),
    });
    const result = await answered(() => call('c1'));
    expect(result.status).toBe('pending');
    await failed.promise;
    await new Promise((resolve) => setImmediate(resolve));
    expect(executor.jobs.poll(result.handle!).error?.message).toContain('could not be read');
  });
});

describe('what execute is given, or a layer gives back, cannot make it throw', () => {
  test('a thenable of a layer that never calls back is bounded by the tool timeout', async () => {
    const { call, audit } = setup({
      timeoutMs: 30,
      // biome-ignore lint/suspicious/noThenProperty: the point of the test
      middlewares: [(() => ({ then() {} })) as unknown as ToolCallMiddleware],
    });
    const result = await answered(() => call('c1'));
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(audit).toHaveLength(1);
  });

  test('a layer result whose then getter throws is E_TOOL_MIDDLEWARE, audited once', async () => {
    const { call, audit, started } = setup({
      middlewares: [
        (() => ({
          // biome-ignore lint/suspicious/noThenProperty: the point of the test
          get then() {
            throw new Error('then getter');
          },
        })) as unknown as ToolCallMiddleware,
      ],
    });
    const result = await answered(() => call('c1'));
    expect(result.error).toMatchObject({ code: 'E_TOOL_MIDDLEWARE', message: 'then getter' });
    expect([audit.length, started.length]).toEqual([1, 0]);
  });

  test('a call that cannot be read rejects (as when execute was an async function), it does not throw', async () => {
    const { executor, catalog } = setup();
    const call = {
      get name(): string {
        throw new Error('no name');
      },
      id: 'c1',
      args: {},
    };
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = executor.execute(call, { catalog, scope: testScope() });
    }).not.toThrow();
    await expect(promise!).rejects.toThrow('no name');
  });
});

describe('errors escaping a handler under middleware (guardProcessErrors)', () => {
  test('fail the running call with E_TOOL, audited once, and the process goes on', async () => {
    const main = `${import.meta.dir}/__fixtures__/escaped-errors-middleware-main.ts`;
    const child = Bun.spawn([process.execPath, main], { stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect({ exitCode, stderr }).toMatchObject({ exitCode: 0 });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.slice(0, 3).map((line) => [line.name, line.result.error?.code])).toEqual([
      ['escape__timer', 'E_TOOL'],
      ['escape__rejection', 'E_TOOL'],
      ['escape__exit', 'E_TOOL'],
    ]);
    expect(lines[0].result.error.message).toContain('thrown in a timer');
    expect(lines[1].result.error.message).toContain('rejected and not awaited');
    expect(lines[2].result.error.message).toContain('a tool may not end the process');
    expect(lines[3]).toEqual({ audited: { escape__timer: 1, escape__rejection: 1, escape__exit: 1 }, alive: true });
  }, 60_000);
});

describe('a bound that cannot be set up', () => {
  test('a signal whose addEventListener throws answers each call still running, none is left hanging', async () => {
    const signal = new AbortController().signal;
    signal.addEventListener = () => {
      throw new Error('no listeners here');
    };
    const { call, audit } = setup({ middlewares: [() => new Promise(() => {})] });
    const results = await Promise.all(['c1', 'c2', 'c3'].map((id) => answered(() => call(id, { signal }))));
    expect(results.map((result) => result.error?.code)).toEqual([
      'E_TOOL_MIDDLEWARE',
      'E_TOOL_MIDDLEWARE',
      'E_TOOL_MIDDLEWARE',
    ]);
    expect(results[0]?.error?.message).toContain('no listeners here');
    expect(audit).toHaveLength(3);
  });
});
