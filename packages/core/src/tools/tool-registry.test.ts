import { describe, expect, test } from 'bun:test';
import type { ToolCatalogItem } from '../types.ts';
import { ToolRegistry } from './tool-registry.ts';

const item = (name: string): ToolCatalogItem => ({ name, source: { type: 'extension', name: 'ext' } });

describe('registry names (spec §2.2, §12.1)', () => {
  test.each([
    ['a____b', 'export name'],
    ['__b', 'resource name'],
    ['a__', 'export name'],
    ['____', 'resource name'],
  ])('spec §2.2.3: refuses %s, whose %s is empty or contains "__" (E_NAME_INVALID)', (name, part) => {
    const registry = new ToolRegistry();
    expect(() => registry.register(item(name), () => null)).toThrow(
      expect.objectContaining({ code: 'E_NAME_INVALID', message: expect.stringContaining(part) }),
    );
    expect(registry.size).toBe(0);
  });

  test('accepts resource__export names whose parts are plain', () => {
    const registry = new ToolRegistry();
    for (const name of ['a__b', 'files__read_file', 'github__createIssue', 'a-b__c-d']) {
      registry.register(item(name), () => null);
    }
    expect(registry.size).toBe(4);
  });
});

describe('registry parameters', () => {
  test.each([
    ['type string', { type: 'string' }, 'have type "string"'],
    ['type array', { type: 'array', items: {} }, 'have type "array"'],
    ['a type list', { type: ['object', 'null'] }, 'have type ["object","null"]'],
    ['an array', [], 'is an array'],
    ['null', null, 'is null'],
    ['a string', 'object', 'is a string'],
  ])('refuses parameters with %s at the top (E_SCHEMA_INVALID), registering nothing', (_label, parameters, said) => {
    const registry = new ToolRegistry();
    expect(() => registry.register({ ...item('x__t'), parameters: parameters as never }, () => null)).toThrow(
      expect.objectContaining({ code: 'E_SCHEMA_INVALID', message: expect.stringContaining(said) }),
    );
    expect(registry.size).toBe(0);
  });

  test('accepts an object schema, one without a type, and none', () => {
    const registry = new ToolRegistry();
    registry.register({ ...item('x__a'), parameters: { type: 'object', properties: {} } }, () => null);
    registry.register({ ...item('x__b'), parameters: { properties: {} } as never }, () => null);
    registry.register(item('x__c'), () => null);
    expect(registry.size).toBe(3);
  });
});

describe('registry options (spec §2.4.2, §12.1)', () => {
  test.each([
    ['errorMessageLimit', 0],
    ['errorMessageLimit', -5],
    ['errorMessageLimit', Number.NaN],
    ['errorMessageLimit', Number.POSITIVE_INFINITY],
    ['errorMessageLimit', 100.5],
    ['errorMessageLimit', 19],
    ['errorMessageLimit', '100'],
    ['timeoutMs', 0],
    ['timeoutMs', Number.NaN],
    ['timeoutMs', -1],
    ['outputLimit', 0],
    ['outputLimit', Number.POSITIVE_INFINITY],
    ['category', 'harmless'],
  ])('refuses %s = %p with E_TOOL_OPTIONS_INVALID naming the field', (field, value) => {
    const registry = new ToolRegistry();
    expect(() => registry.register(item('a__b'), () => null, { [field]: value })).toThrow(
      expect.objectContaining({ code: 'E_TOOL_OPTIONS_INVALID', message: expect.stringContaining(field) }),
    );
    expect(registry.size).toBe(0);
  });

  test('accepts the smallest errorMessageLimit a Tool resource may declare (20) and leaves undefined to defaults', () => {
    const registry = new ToolRegistry();
    const tool = registry.register(item('a__b'), () => null, { errorMessageLimit: 20, timeoutMs: undefined });
    expect(tool.errorMessageLimit).toBe(20);
    expect(tool.timeoutMs).toBe(30_000);
  });
});
