import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentInstance } from '../agent/agent-instance.ts';
import { openAgentInstance } from '../agent/open-agent-instance.ts';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel } from '../models/scripted-model.ts';

const dirs: string[] = [];
const opened: AgentInstance[] = [];
afterEach(async () => {
  for (const instance of opened.splice(0)) await instance.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What the extensions of these tests share with the test: the handler's call count, a promise to wait on. */
interface Shared {
  handled: number;
  release?: () => void;
  waiting?: Promise<void>;
  entered?: () => void;
  lateResult?: unknown;
  lateDone?: () => void;
}
const shared = globalThis as unknown as { goondanMisuse: Shared };

/** An agent instance whose Agent uses Tool `t` (export `go`, timeoutMs 1000) and Extension `x` (`extension`). */
async function open(extension: string): Promise<AgentInstance> {
  shared.goondanMisuse = { handled: 0 };
  const dir = mkdtempSync(join(tmpdir(), 'gdn-ext-misuse-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    join(dir, 'src', 't.ts'),
    'export const handlers = { go: () => { globalThis.goondanMisuse.handled += 1; return { ok: 1 }; } };\n',
  );
  writeFileSync(join(dir, 'src', 'x.ts'), extension);
  const documents = [
    'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata:\n  name: t\nspec:\n  entry: ./src/t.ts\n  timeoutMs: 1000\n  exports:\n    - name: go\n      description: Goes.\n      parameters: { type: object }',
    'apiVersion: goondan.ai/v1\nkind: Extension\nmetadata:\n  name: x\nspec:\n  entry: ./src/x.ts',
    'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata:\n  name: a\nspec:\n  modelConfig:\n    modelRef: Model/main\n  tools: [Tool/t]\n  extensions: [Extension/x]',
    'apiVersion: goondan.ai/v1\nkind: Model\nmetadata:\n  name: main\nspec:\n  provider: scripted\n  model: m\n  script: []',
  ];
  writeFileSync(join(dir, 'goondan.yaml'), `${documents.join('\n---\n')}\n`);
  const loaded = await loadBundle({ dir });
  expect(loaded.problems).toEqual([]);
  const quiet = () => {};
  const instance = await openAgentInstance({
    bundle: loaded.bundle!,
    handlers: loaded.handlers,
    agent: loaded.bundle!.resources.get('Agent/a') as AgentResource,
    instanceKey: 'x',
    model: createScriptedModel([]),
    stateDir: join(dir, 'state'),
    logger: { log: quiet, info: quiet, debug: quiet, warn: quiet, error: quiet } as unknown as Console,
  });
  opened.push(instance);
  return instance;
}

const go = (instance: AgentInstance, args: Record<string, string> = {}, signal?: AbortSignal) =>
  instance.callTool({ id: `c_${Math.random()}`, name: 't__go', args }, signal ? { signal } : {});

describe('a toolCall middleware that never answers', () => {
  const hanging = `export function register(api) {
  api.pipeline.register('toolCall', async (ctx) => {
    const shared = globalThis.goondanMisuse;
    if (ctx.args.k === 'before') return new Promise(() => {});
    if (ctx.args.k === 'after') { await ctx.next(); return new Promise(() => {}); }
    if (ctx.args.k === 'late') {
      shared.waiting = new Promise((done) => { shared.release = done; });
      shared.entered?.();
      await shared.waiting;
      shared.lateResult = await ctx.next();
      shared.lateDone?.();
      return shared.lateResult;
    }
    if (ctx.args.k === 'cancel') { shared.entered?.(); return new Promise(() => {}); }
    return ctx.next();
  });
}
`;

  test('before next(): the call is answered E_TOOL_MIDDLEWARE at the tool timeout, and other calls go on', async () => {
    // It used to hang the call (and its turn) for ever: only the handler had a timeout.
    const instance = await open(hanging);
    const result = await go(instance, { k: 'before' });
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result.error?.message).toStartWith(
      "Tool 't__go': its toolCall middleware did not answer within 1000 ms (the tool's timeoutMs) of its own time",
    );
    expect(shared.goondanMisuse.handled).toBe(0);
    expect(await go(instance)).toEqual({ status: 'ok', output: { ok: 1 } });
  });

  test('after the handler answered: E_TOOL_MIDDLEWARE too (the handler ran once)', async () => {
    const instance = await open(hanging);
    const result = await go(instance, { k: 'after' });
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(shared.goondanMisuse.handled).toBe(1);
  });

  test('a next() called after the call was given up does not run the handler', async () => {
    const instance = await open(hanging);
    const result = await go(instance, { k: 'late' });
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    const state = shared.goondanMisuse;
    const lateDone = new Promise<void>((done) => {
      state.lateDone = done;
    });
    state.release?.();
    await lateDone;
    expect(state.lateResult).toMatchObject({ status: 'error', error: { code: 'E_TOOL_ABORTED' } });
    expect(state.handled).toBe(0);
    expect(await go(instance)).toEqual({ status: 'ok', output: { ok: 1 } });
    expect(state.handled).toBe(1);
  });

  test('cancelling the call answers E_TOOL_ABORTED at once, not at the timeout', async () => {
    const instance = await open(hanging);
    const controller = new AbortController();
    const entered = new Promise<void>((done) => {
      shared.goondanMisuse.entered = done;
    });
    const call = go(instance, { k: 'cancel' }, controller.signal);
    await entered;
    controller.abort();
    const result = await call;
    expect(result.error?.code).toBe('E_TOOL_ABORTED');
    expect(result.error?.message).toBe("Tool 't__go' was cancelled while its toolCall middleware was running.");
  });
});

describe('what a middleware throws that cannot be read', () => {
  test('a Proxy whose every trap throws: E_TOOL_MIDDLEWARE naming the extension', async () => {
    // It used to be answered with the trap's own message ("trap"), the extension unnamed.
    const instance = await open(`export function register(api) {
  const trap = () => { throw new Error('trap'); };
  api.pipeline.register('toolCall', async () => {
    throw new Proxy({}, { get: trap, has: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });
  });
}
`);
    const result = await go(instance);
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result.error?.message).toBe("Extension 'x': threw a value that cannot be read (a object)");
  });

  test('a frozen Error: named by a new error of the same message', async () => {
    const instance = await open(`export function register(api) {
  api.pipeline.register('toolCall', async () => { throw Object.freeze(new Error('cold')); });
}
`);
    const result = await go(instance);
    expect(result.error?.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result.error?.message).toBe("Extension 'x': threw cold");
  });
});

describe('api members called after the agent started', () => {
  test('pipeline.register and onClose from a tool handler are E_EXTENSION_TOO_LATE, not dropped silently', async () => {
    const instance = await open(`export function register(api) {
  api.tools.register({ name: 'x__late', parameters: { type: 'object' } }, (_ctx, input) => {
    if (input.what === 'close') api.onClose(() => {});
    else api.pipeline.register('toolCall', async () => ({ status: 'ok', output: 'never' }));
    return 'registered';
  });
}
`);
    const late = await instance.callTool({ id: 'l1', name: 'x__late', args: {} });
    expect(late.error?.code).toBe('E_EXTENSION_TOO_LATE');
    expect(late.error?.message).toStartWith(
      "Extension 'x' called api.pipeline.register('toolCall', ...) after the agent started",
    );
    const close = await instance.callTool({ id: 'l2', name: 'x__late', args: { what: 'close' } });
    expect(close.error?.code).toBe('E_EXTENSION_TOO_LATE');
    expect(close.error?.message).toStartWith("Extension 'x' called api.onClose(...) after the agent started");
    expect(await go(instance)).toEqual({ status: 'ok', output: { ok: 1 } });
  });
});

describe('api.state.set with what JSON cannot keep', () => {
  const stateExtension = `export function register(api) {
  api.tools.register({ name: 'x__keep', parameters: { type: 'object' } }, (_ctx, input) => {
    if (input.k === 'read') return api.state.get('k') ?? 'none';
    const loop = { a: [1] }; loop.a.push(loop);
    const values = {
      big: { n: 10n }, cycle: loop, fn: [() => 1], nan: { ratio: NaN }, map: new Map([[1, 2]]), date: new Date(0),
      undef: undefined, proxy: new Proxy({}, { ownKeys() { throw new Error('trap'); } }),
      optional: { a: 1, b: undefined }, plain: { list: [1, 'two', null, true], nested: { ok: 1 } },
    };
    api.state.set('k', values[input.k]);
    return api.state.get('k');
  });
}
`;

  test('each is E_EXTENSION_STATE_INVALID saying what and where; nothing is stored; JSON values are kept', async () => {
    // They used to be a bare TypeError ("JSON.stringify cannot serialize BigInt.") naming neither key nor place, or
    // stored silently as something else (NaN → null, a Map → {}, a Date → a string).
    const instance = await open(stateExtension);
    const keep = (k: string) => instance.callTool({ id: `s_${k}`, name: 'x__keep', args: { k } });
    const expected: Record<string, string> = {
      big: 'a bigint at value.n',
      cycle: 'a cycle at value.a[1] (it refers to an object that holds it)',
      fn: 'a function at value[0]',
      nan: 'NaN at value.ratio (JSON keeps it as null)',
      map: 'a Map at value (only plain objects and arrays)',
      date: 'a Date at value (only plain objects and arrays)',
      undef: 'undefined at value (use api.state.delete to remove a key)',
      proxy: 'a value that cannot be read at value (trap)',
    };
    for (const [k, problem] of Object.entries(expected)) {
      const result = await keep(k);
      expect(result.error?.code).toBe('E_EXTENSION_STATE_INVALID');
      expect(result.error?.message).toBe(
        `Extension 'x': api.state.set('k', ...) was given what JSON cannot keep: ${problem}. Nothing was stored.`,
      );
    }
    expect(await keep('optional')).toEqual({ status: 'ok', output: { a: 1 } });
    expect(await keep('plain')).toEqual({ status: 'ok', output: { list: [1, 'two', null, true], nested: { ok: 1 } } });
    expect((await keep('big')).error?.code).toBe('E_EXTENSION_STATE_INVALID');
    // The refused set left the value before it.
    expect(await keep('read')).toEqual({ status: 'ok', output: { list: [1, 'two', null, true], nested: { ok: 1 } } });
  });
});
