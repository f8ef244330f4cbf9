import { describe, expect, test } from 'bun:test';
import { GoondanError } from '../errors/goondan-error.ts';
import { createTestToolContext } from '../testing.ts';
import { registryWith, testScope } from '../tools/test-support.ts';
import { ToolCatalog } from '../tools/tool-catalog.ts';
import { ToolExecutor } from '../tools/tool-executor.ts';
import type { JsonObject, JsonValue, ToolCatalogItem, ToolHandler } from '../types.ts';
import { DEFAULT_CONFIRM_ABOVE, type GuardrailPlanner, guardrailParameters, withGuardrail } from './guardrail.ts';

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Loose = any;

/** A guarded handler over `count` numbered items that records whether apply ran. */
function guarded(count: number, options?: { confirmAbove?: number }) {
  const applied: number[] = [];
  const items = Array.from({ length: count }, (_, index) => ({ item: index + 1 }));
  const handler = withGuardrail(
    () => ({
      changes: items,
      summary: `${count} items`,
      apply: () => {
        applied.push(count);
        return { removed: count };
      },
    }),
    options,
  );
  return { handler, applied };
}

const ctx = (config: JsonObject = {}) => createTestToolContext({ workdir: '/tmp', config });
const run = async (handler: ToolHandler, input: JsonObject, config?: JsonObject): Promise<Loose> =>
  handler(ctx(config), input);
const codeOf = async (work: Promise<unknown>): Promise<string> =>
  work.then(
    () => 'resolved',
    (thrown: { code?: string }) => thrown.code ?? String(thrown),
  );

describe('withGuardrail', () => {
  test('preview lists the changes and never applies, even with confirm', async () => {
    const { handler, applied } = guarded(7);
    const result = await run(handler, { preview: true, confirm: true });
    expect(result).toMatchObject({
      preview: true,
      count: 7,
      changesShown: 7,
      truncated: false,
      summary: '7 items',
      threshold: DEFAULT_CONFIRM_ABOVE,
      needsConfirm: true,
    });
    expect(result.changes).toEqual([1, 2, 3, 4, 5, 6, 7].map((item) => ({ item })));
    expect(result.note).toContain('confirm: true');
    expect(applied).toEqual([]);
  });

  test('preview shows the first 50 changes and says it is cut', async () => {
    const { handler, applied } = guarded(120);
    const result = await run(handler, { preview: true });
    expect(result).toMatchObject({ count: 120, changesShown: 50, truncated: true });
    expect(result.changes).toHaveLength(50);
    expect(result.changes[49]).toEqual({ item: 50 });
    expect(applied).toEqual([]);
  });

  test('5 changes apply without confirm; 6 are refused with E_CONFIRM_REQUIRED and nothing applied', async () => {
    const five = guarded(5);
    expect(await run(five.handler, {})).toEqual({ removed: 5 });
    expect(five.applied).toEqual([5]);

    const six = guarded(6);
    const refused = run(six.handler, {});
    await expect(refused).rejects.toBeInstanceOf(GoondanError);
    const error = (await refused.catch((thrown) => thrown)) as GoondanError;
    expect(error.code).toBe('E_CONFIRM_REQUIRED');
    expect(error.message).toContain('6 items');
    expect(error.message).toContain('more than 5');
    expect(error.message).toContain('preview: true');
    expect(six.applied).toEqual([]);
  });

  test('confirm: true lets a call above the threshold apply', async () => {
    const { handler, applied } = guarded(6);
    expect(await run(handler, { confirm: true })).toEqual({ removed: 6 });
    expect(applied).toEqual([6]);
  });

  test('confirm: false is no confirmation', async () => {
    const { handler } = guarded(6);
    expect(await codeOf(run(handler, { confirm: false }))).toBe('E_CONFIRM_REQUIRED');
  });

  test('ctx.config.confirmAbove overrides the default and the option', async () => {
    expect(await codeOf(run(guarded(2).handler, {}, { confirmAbove: 1 }))).toBe('E_CONFIRM_REQUIRED');
    expect(await run(guarded(1).handler, {}, { confirmAbove: 1 })).toEqual({ removed: 1 });
    expect(await codeOf(run(guarded(1).handler, {}, { confirmAbove: 0 }))).toBe('E_CONFIRM_REQUIRED');
    expect(await run(guarded(20).handler, {}, { confirmAbove: 100 })).toEqual({ removed: 20 });
    expect(await run(guarded(20, { confirmAbove: 1 }).handler, {}, { confirmAbove: 100 })).toEqual({ removed: 20 });
    expect((await run(guarded(3).handler, { preview: true }, { confirmAbove: 2 })).threshold).toBe(2);
  });

  test('options.confirmAbove applies when the config sets none; a bad config value falls back with a warning', async () => {
    expect(await codeOf(run(guarded(3, { confirmAbove: 2 }).handler, {}))).toBe('E_CONFIRM_REQUIRED');
    const warnings: string[] = [];
    const logger = { ...console, warn: (line: string) => warnings.push(line) } as Console;
    const context = createTestToolContext({ workdir: '/tmp', config: { confirmAbove: -1 }, logger });
    expect(await guarded(5).handler(context, {})).toEqual({ removed: 5 });
    expect(await codeOf(Promise.resolve(guarded(6).handler(context, {})))).toBe('E_CONFIRM_REQUIRED');
    expect(warnings[0]).toContain('confirmAbove');
  });

  test('a bad confirmAbove option is refused when the handler is built', () => {
    expect(() => guarded(1, { confirmAbove: -1 })).toThrow(TypeError);
    expect(() => guarded(1, { confirmAbove: 2.5 })).toThrow(TypeError);
  });

  test('zero changes still apply, so the tool can report that nothing matched', async () => {
    const { handler, applied } = guarded(0);
    expect(await run(handler, {})).toEqual({ removed: 0 });
    expect(applied).toEqual([0]);
    expect(await run(handler, { preview: true })).toMatchObject({ count: 0, needsConfirm: false });
  });

  test('non-boolean flags are refused rather than read as false', async () => {
    const { handler, applied } = guarded(1);
    expect(await codeOf(run(handler, { preview: 'true' }))).toBe('E_TOOL_INVALID_ARGS');
    expect(await codeOf(run(handler, { confirm: 1 }))).toBe('E_TOOL_INVALID_ARGS');
    expect(applied).toEqual([]);
  });

  test('a call cancelled while planning does not apply', async () => {
    const controller = new AbortController();
    let applied = false;
    const handler = withGuardrail(async () => {
      controller.abort();
      return { changes: [], apply: () => (applied = true) };
    });
    const context = createTestToolContext({ workdir: '/tmp', signal: controller.signal });
    expect(await codeOf(Promise.resolve(handler(context, {})))).toBe('E_TOOL_ABORTED');
    expect(applied).toBe(false);
  });

  test('the planner gets the input as given and a default summary is written', async () => {
    const seen: JsonValue[] = [];
    const planner: GuardrailPlanner<{ tag: string; preview?: boolean }> = (_ctx, input) => {
      seen.push(input.tag);
      return { changes: ['a', 'b'], apply: () => null };
    };
    const result = await run(withGuardrail(planner), { tag: 'old', preview: true });
    expect(seen).toEqual(['old']);
    expect(result.summary).toBe('2 items would change');
  });

  test('guardrailParameters gives two described boolean properties', () => {
    const properties = guardrailParameters();
    expect(Object.keys(properties)).toEqual(['preview', 'confirm']);
    for (const schema of Object.values(properties)) {
      expect(schema.type).toBe('boolean');
      expect(String(schema.description).length).toBeGreaterThan(20);
    }
  });
});

describe('withGuardrail through the ToolExecutor', () => {
  const item: ToolCatalogItem = {
    name: 'notes__purge',
    parameters: {
      type: 'object',
      properties: { fail: { type: 'boolean' }, count: { type: 'integer' }, ...guardrailParameters() },
      additionalProperties: false,
    },
    source: { type: 'config', name: 'notes' },
  };
  const handler = withGuardrail(async (_ctx, input: { fail?: boolean; count?: number }) => {
    await Bun.sleep(1);
    if (input.fail) throw new Error('notes database is locked');
    const changes = Array.from({ length: input.count ?? 0 }, (_, index) => index);
    return { changes, apply: async () => ({ purged: changes.length }) };
  });
  const executor = new ToolExecutor({
    registry: registryWith([{ item, handler, options: { config: { confirmAbove: 3 } } }]),
  });
  const call = (args: JsonObject) =>
    executor.execute(
      { id: 'c1', name: 'notes__purge', args },
      { catalog: new ToolCatalog([item]), scope: testScope() },
    );

  test('an async planner that throws becomes an error result', async () => {
    const result = await call({ fail: true });
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ code: 'E_TOOL', message: 'notes database is locked' });
  });

  test('E_CONFIRM_REQUIRED comes back as data with its suggestion and help page, using the registered config', async () => {
    const result = await call({ count: 4 });
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ code: 'E_CONFIRM_REQUIRED', name: 'ConfirmRequiredError' });
    expect(result.error?.message).toContain('more than 3');
    expect(result.error?.suggestion).toContain('preview: true');
    expect(result.error?.helpUrl).toContain('E_CONFIRM_REQUIRED');
  });

  test('preview and confirm pass the schema and behave', async () => {
    expect(await call({ count: 4, preview: true })).toMatchObject({
      status: 'ok',
      output: { preview: true, count: 4, threshold: 3, needsConfirm: true },
    });
    expect(await call({ count: 4, confirm: true })).toEqual({ status: 'ok', output: { purged: 4 } });
  });
});
