import { describe, expect, test } from 'bun:test';
import { composeMiddleware, type Middleware } from './compose-middleware.ts';

type Context = { trail: string[]; next(): Promise<string> };

function compose(middlewares: Middleware<Context, string>[]) {
  return composeMiddleware<{ trail: string[] }, Context, string>({
    middlewares,
    bind: (state, next) => ({ trail: state.trail, next }),
    core: async (state) => {
      state.trail.push('core');
      return 'done';
    },
  });
}

describe('composeMiddleware', () => {
  test('runs layers as an onion around the core, in registration order', async () => {
    const layer =
      (name: string): Middleware<Context, string> =>
      async (ctx) => {
        ctx.trail.push(`${name} in`);
        const result = await ctx.next();
        ctx.trail.push(`${name} out`);
        return `${name}(${result})`;
      };
    const state = { trail: [] as string[] };
    expect(await compose([layer('a'), layer('b')])(state)).toBe('a(b(done))');
    expect(state.trail).toEqual(['a in', 'b in', 'core', 'b out', 'a out']);
  });

  test('rejects a second next() in the same layer', async () => {
    const twice: Middleware<Context, string> = async (ctx) => {
      await ctx.next();
      return ctx.next();
    };
    await expect(compose([twice])({ trail: [] })).rejects.toThrow('next() called more than once');
  });

  test('a second next() the layer does not await is no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const careless: Middleware<Context, string> = async (ctx) => {
        const first = await ctx.next();
        void ctx.next();
        return first;
      };
      expect(await compose([careless])({ trail: [] })).toBe('done');
      // Unhandled rejections are reported after the microtasks of the turn: the next turn of the loop is past them.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('checks the chain when it is built, not per call', () => {
    expect(() => compose([42 as unknown as Middleware<Context, string>])).toThrow('position 0 is not a function');
  });

  test('a synchronous throw in a layer becomes a rejected promise', async () => {
    const sync = (() => {
      throw new Error('sync boom');
    }) as unknown as Middleware<Context, string>;
    await expect(compose([sync])({ trail: [] })).rejects.toThrow('sync boom');
  });
});
