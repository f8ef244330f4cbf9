import { describe, expect, test } from 'bun:test';
import type { ToolCatalogItem } from '../types.ts';
import { CatalogBuilder } from './catalog-builder.ts';
import { ToolRegistry } from './tool-registry.ts';

const item = (name: string, type: 'config' | 'extension' | 'mcp' = 'config'): ToolCatalogItem => ({
  name,
  source: { type, name: name.split('__')[0]! },
});

describe('catalog (spec §2.1, §3, §12.3)', () => {
  test('spec §2.1.2: starts from the Agent spec.tools, in declaration order, with every export of each', () => {
    const registry = new ToolRegistry();
    for (const name of ['a__one', 'a__two', 'b__run', 'c__hidden']) registry.register(item(name), () => null);
    const builder = new CatalogBuilder(registry, ['b', 'a']);
    expect(builder.build().names()).toEqual(['b__run', 'a__one', 'a__two']);
  });

  test('spec §2.1.4 / §12.3: tools registered later appear in the catalog built for the next step', () => {
    const registry = new ToolRegistry();
    registry.register(item('a__one'), () => null);
    const builder = new CatalogBuilder(registry, ['a']);
    expect(builder.build().has('weather__get')).toBe(false);
    registry.register(item('weather__get', 'extension'), () => null);
    expect(builder.build().names()).toEqual(['a__one', 'weather__get']);
  });

  test('spec §2.1.3: step middleware may edit the array; the guard follows the edited catalog', () => {
    const registry = new ToolRegistry();
    for (const name of ['a__one', 'a__two']) registry.register(item(name), () => null);
    const builder = new CatalogBuilder(registry, ['a']);
    const items = builder.initialItems();
    items.splice(0, 1);
    const catalog = builder.finalize(items);
    expect(catalog.has('a__one')).toBe(false);
    expect(catalog.has('a__two')).toBe(true);
    expect(builder.build().has('a__one')).toBe(true);
  });

  test.each([
    ['a string', 'a__one', 'is a string, not an array'],
    ['null', null, 'is null, not an array'],
    ['an item without a name', [{ description: 'x' }], 'has an object of another shape at 0, which has no name'],
    ['an empty name', [item('a__one'), { name: '' }], 'has an object of another shape at 1, which has no name'],
    ['a string item', ['a__one'], 'has a string at 0, which has no name'],
  ])('an edited catalog that is %s is refused with a TypeError saying what is wrong', (_label, items, says) => {
    const registry = new ToolRegistry();
    registry.register(item('a__one'), () => null);
    const builder = new CatalogBuilder(registry, ['a']);
    expect(() => builder.finalize(items as never)).toThrow(`The step's tool catalog ${says}`);
  });

  test('the catalog keeps its own copy, so editing the array afterwards cannot widen what the guard allows', () => {
    const registry = new ToolRegistry();
    registry.register(item('a__one'), () => null);
    registry.register(item('a__two'), () => null);
    const builder = new CatalogBuilder(registry, ['a']);
    const items = builder.initialItems();
    items.pop();
    const catalog = builder.finalize(items);
    items.push(item('a__two'));
    expect(catalog.names()).toEqual(['a__one']);
    expect(catalog.has('a__two')).toBe(false);
  });
});

describe('each step gets its own copy of the items (spec §2.1.3)', () => {
  const schema = { type: 'object' as const, properties: { q: { type: 'string' } } };
  const setup = () => {
    const registry = new ToolRegistry();
    registry.register({ ...item('a__one'), description: 'one', parameters: schema }, () => null);
    registry.register(item('a__two'), () => null);
    return { registry, builder: new CatalogBuilder(registry, ['a']) };
  };

  test('an item edited in place changes that step only: not the registry, not the next step', () => {
    const { registry, builder } = setup();
    const items = builder.initialItems();
    items[0]!.description = 'edited';
    items[0]!.parameters = { type: 'object', properties: {} };
    const catalog = builder.finalize(items);
    expect(catalog.get('a__one')).toMatchObject({ description: 'edited', parameters: { properties: {} } });
    expect(registry.get('a__one')!.item.description).toBe('one');
    expect(builder.initialItems()[0]).toMatchObject({ description: 'one', parameters: schema });
  });

  test('the registry keeps its own frozen copy: the caller object and a deep edit cannot reach it', () => {
    const { registry, builder } = setup();
    schema.properties.q.type = 'number';
    expect(registry.get('a__one')!.item.parameters).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
    schema.properties.q.type = 'string';
    const items = builder.initialItems();
    expect(() => {
      (items[0]!.parameters!.properties as Record<string, { type: string }>).q!.type = 'number';
    }).toThrow();
    expect(Object.isFrozen(registry.get('a__one')!.item)).toBe(true);
  });

  test('what the catalog holds is a snapshot: editing the item after finalize changes nothing', () => {
    const { builder } = setup();
    const items = builder.initialItems();
    items[0]!.description = 'first';
    const catalog = builder.finalize(items);
    items[0]!.description = 'later';
    expect(catalog.get('a__one')!.description).toBe('first');
  });

  test('unedited copies finalize to the registry items themselves, so per-item caches keep hitting', () => {
    const { registry, builder } = setup();
    const catalog = builder.finalize(builder.initialItems());
    expect(catalog.items[0]).toBe(registry.get('a__one')!.item);
    expect(catalog.items[1]).toBe(registry.get('a__two')!.item);
  });
});

describe('registry', () => {
  test('a second registration of a name is an error, never an overwrite (E_TOOL_DUPLICATE)', () => {
    const registry = new ToolRegistry();
    const first = () => 'first';
    registry.register(item('a__one'), first);
    expect(() => registry.register(item('a__one', 'extension'), () => 'second')).toThrow(
      expect.objectContaining({ code: 'E_TOOL_DUPLICATE' }),
    );
    expect(registry.get('a__one')?.handler).toBe(first);
  });

  test('refuses names that break the resource__export or provider rule (E_NAME_INVALID)', () => {
    const registry = new ToolRegistry();
    expect(() => registry.register(item('noseparator'), () => null)).toThrow(
      expect.objectContaining({ code: 'E_NAME_INVALID' }),
    );
    expect(() => registry.register(item(`a__${'x'.repeat(70)}`), () => null)).toThrow(
      expect.objectContaining({ code: 'E_NAME_INVALID' }),
    );
    expect(() => registry.register(item('a.b__c'), () => null)).toThrow(
      expect.objectContaining({ code: 'E_NAME_INVALID' }),
    );
  });

  test('applies defaults: errorMessageLimit 1000 (spec §2.4.3), timeout 30 s', () => {
    const registry = new ToolRegistry();
    const tool = registry.register(item('a__one'), () => null);
    expect(tool.errorMessageLimit).toBe(1000);
    expect(tool.timeoutMs).toBe(30_000);
  });
});
