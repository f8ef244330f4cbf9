import { describe, expect, test } from 'bun:test';
import { PermissionPolicy } from '../permissions/permission-policy.ts';
import type { ToolCallMiddleware, ToolCatalogItem, ToolHandler } from '../types.ts';
import { registryWith, testScope } from './test-support.ts';
import { ToolCatalog } from './tool-catalog.ts';
import { ToolExecutor } from './tool-executor.ts';

const echo: ToolCatalogItem = { name: 'echo__say', source: { type: 'config', name: 'echo' } };
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function setup(
  options: {
    handler?: ToolHandler;
    middlewares?: ToolCallMiddleware[];
    errorMessageLimit?: number;
    category?: 'safe' | 'restricted';
  } = {},
) {
  const registry = registryWith([
    {
      item: echo,
      handler: options.handler ?? (() => 'said'),
      options: { errorMessageLimit: options.errorMessageLimit, category: options.category ?? 'safe' },
    },
  ]);
  const executor = new ToolExecutor({
    registry,
    middlewares: options.middlewares,
    permissions: new PermissionPolicy({ restricted: 'deny' }),
  });
  return { executor, catalog: new ToolCatalog([echo]) };
}

describe('every error message that reaches the model is cut to the limit (spec §2.4.2–3)', () => {
  test('E_TOOL_NOT_IN_CATALOG for an unknown, very long name is cut to the default 1000 characters', async () => {
    const { executor, catalog } = setup();
    const name = `echo__${'s'.repeat(5000)}`;
    const result = await executor.execute({ id: 'c1', name, args: {} }, { catalog, scope: testScope() });
    expect(result.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    expect(result.error?.message.length).toBeLessThanOrEqual(1000);
    expect(result.error?.message.endsWith('... (truncated)')).toBe(true);
  });

  test('E_TOOL_NOT_FOUND for a catalog entry with nothing registered is cut to the default limit', async () => {
    const { executor } = setup();
    const ghost = { name: `ghost__${'g'.repeat(3000)}` };
    const result = await executor.execute(
      { id: 'c1', name: ghost.name, args: {} },
      { catalog: new ToolCatalog([ghost]), scope: testScope() },
    );
    expect(result.error?.code).toBe('E_TOOL_NOT_FOUND');
    expect(result.error?.message.length).toBeLessThanOrEqual(1000);
  });

  test('E_POLICY_DENIED naming a long source is cut to the tool errorMessageLimit', async () => {
    const { executor, catalog } = setup({ errorMessageLimit: 60, category: 'restricted' });
    const result = await executor.execute(
      { id: 'c1', name: 'echo__say', args: {} },
      { catalog, scope: testScope({ source: { kind: 'user', name: 'n'.repeat(2000) } }) },
    );
    expect(result.error?.code).toBe('E_POLICY_DENIED');
    expect(result.error?.message.length).toBeLessThanOrEqual(60);
  });

  test('an error result a toolCall middleware returns is cut to the tool errorMessageLimit', async () => {
    const refuse: ToolCallMiddleware = async () => ({
      status: 'error',
      error: { code: 'E_TOOL', message: 'no '.repeat(1000) },
    });
    const { executor, catalog } = setup({ errorMessageLimit: 40, middlewares: [refuse] });
    const result = await executor.execute({ id: 'c1', name: 'echo__say', args: {} }, { catalog, scope: testScope() });
    expect(result.error?.message).toHaveLength(40);
  });

  test('a message of emoji is cut between characters, never inside a surrogate pair', async () => {
    const { executor, catalog } = setup({
      errorMessageLimit: 50,
      handler: () => {
        throw new Error('🔥'.repeat(400));
      },
    });
    const result = await executor.execute({ id: 'c1', name: 'echo__say', args: {} }, { catalog, scope: testScope() });
    const message = result.error?.message ?? '';
    expect(message.length).toBeLessThanOrEqual(50);
    expect(loneSurrogate.test(message)).toBe(false);
  });
});

describe("an output that cannot be serialized is the tool's own error (spec §2.4.1)", () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  test.each<[string, () => unknown, string]>([
    [
      'a getter that throws',
      () => ({
        get broken() {
          throw new Error('getter exploded');
        },
      }),
      'getter exploded',
    ],
    [
      'a toJSON that throws',
      () => ({
        toJSON() {
          throw new Error('toJSON exploded');
        },
      }),
      'toJSON exploded',
    ],
    [
      'a Proxy whose ownKeys trap throws',
      () =>
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('keys exploded');
            },
          },
        ),
      'keys exploded',
    ],
  ])('%s gives E_TOOL, not E_TOOL_MIDDLEWARE', async (_label, make, cause) => {
    const { executor, catalog } = setup({ handler: make as ToolHandler });
    const result = await executor.execute({ id: 'c1', name: 'echo__say', args: {} }, { catalog, scope: testScope() });
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('E_TOOL');
    expect(result.error?.message).toContain('could not be serialized');
    expect(result.error?.message).toContain(cause);
  });

  test('a BigInt and a cycle still serialize (as a string and "[Circular]")', async () => {
    const { executor, catalog } = setup({ handler: () => ({ big: 10n ** 30n, cycle }) });
    const result = await executor.execute({ id: 'c1', name: 'echo__say', args: {} }, { catalog, scope: testScope() });
    expect(result).toEqual({
      status: 'ok',
      output: { big: '1000000000000000000000000000000', cycle: { a: 1, self: '[Circular]' } },
    });
  });
});

describe('a result a toolCall middleware made itself', () => {
  test('is made JSON-safe like a handler output: a BigInt, a cycle, a function, in the output and the error', async () => {
    const registry = registryWith([{ item: echo, handler: () => 'said', options: { category: 'safe' } }]);
    const call = { id: 'c1', name: 'echo__say', args: {} };
    const catalog = new ToolCatalog([echo]);
    const looped: Record<string, unknown> = { a: 1 };
    looped.self = looped;
    const answers: [ToolCallMiddleware, unknown][] = [
      [async () => ({ status: 'ok', output: 10n }) as never, { status: 'ok', output: '10' }],
      [async () => ({ status: 'ok', output: looped }) as never, { status: 'ok', output: { a: 1, self: '[Circular]' } }],
      [
        async () =>
          ({ status: 'error', error: { message: 'no', details: { size: 2n ** 70n, run: () => 1 } } }) as never,
        { status: 'error', error: { message: 'no', details: { size: '1180591620717411303424' } } },
      ],
    ];
    for (const [middleware, expected] of answers) {
      const result = await new ToolExecutor({ registry, middlewares: [middleware] }).execute(call, {
        catalog,
        scope: testScope(),
      });
      expect(result).toEqual(expected as never);
      expect(() => JSON.stringify(result)).not.toThrow();
    }
  });

  test('an output whose getter throws is E_TOOL_MIDDLEWARE naming the cause', async () => {
    const registry = registryWith([{ item: echo, handler: () => 'said', options: { category: 'safe' } }]);
    const exploding: ToolCallMiddleware = async () =>
      ({
        status: 'ok',
        output: {
          get x() {
            throw new Error('getter exploded');
          },
        },
      }) as never;
    const result = await new ToolExecutor({ registry, middlewares: [exploding] }).execute(
      { id: 'c1', name: 'echo__say', args: {} },
      { catalog: new ToolCatalog([echo]), scope: testScope() },
    );
    expect(result).toMatchObject({ status: 'error', error: { code: 'E_TOOL_MIDDLEWARE', message: 'getter exploded' } });
  });
});

describe('nothing thrown crosses the executor (spec §2.4.1)', () => {
  test('a handler error that cannot be read is E_TOOL when no middleware is registered', async () => {
    const unreadable = new Error('hidden');
    Object.defineProperty(unreadable, 'message', {
      get() {
        throw new Error('message getter exploded');
      },
    });
    const registry = registryWith([
      {
        item: echo,
        handler: () => {
          throw unreadable;
        },
        options: { category: 'safe' },
      },
    ]);
    const result = await new ToolExecutor({ registry }).execute(
      { id: 'c1', name: 'echo__say', args: {} },
      { catalog: new ToolCatalog([echo]), scope: testScope() },
    );
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('E_TOOL');
  });

  test('a check that throws before the call runs is an E_TOOL result; a middleware that throws, E_TOOL_MIDDLEWARE', async () => {
    const registry = registryWith([{ item: echo, handler: () => 'said', options: { category: 'safe' } }]);
    const broken = new PermissionPolicy();
    broken.decide = () => {
      throw new Error('policy store unreadable');
    };
    const checks = new ToolExecutor({ registry, permissions: broken });
    const call = { id: 'c1', name: 'echo__say', args: {} };
    const catalog = new ToolCatalog([echo]);
    const before = await checks.execute(call, { catalog, scope: testScope() });
    expect(before).toMatchObject({ status: 'error', error: { code: 'E_TOOL', message: 'policy store unreadable' } });

    const throwing: ToolCallMiddleware = () => {
      throw new Error('middleware broke');
    };
    const rejecting: ToolCallMiddleware = async () => {
      throw new Error('middleware rejected');
    };
    for (const [middleware, message] of [
      [throwing, 'middleware broke'],
      [rejecting, 'middleware rejected'],
    ] as const) {
      const executor = new ToolExecutor({ registry, middlewares: [middleware] });
      const result = await executor.execute(call, { catalog, scope: testScope() });
      expect(result).toMatchObject({ status: 'error', error: { code: 'E_TOOL_MIDDLEWARE', message } });
    }
  });
});
