import { describe, expect, test } from 'bun:test';
import { schemaToType } from './schema-to-type.ts';

describe('schemaToType', () => {
  test('an object schema becomes an object type: required fields plain, the others optional', () => {
    const type = schemaToType({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Who to greet', minLength: 1 },
        times: { type: 'integer' },
        'dry-run': { type: 'boolean' },
      },
      required: ['name'],
      additionalProperties: false,
    });
    expect(type).toBe("{\n  /** Who to greet */\n  name: string;\n  times?: number;\n  'dry-run'?: boolean;\n}");
  });

  test('enum and const become literal unions; type lists and anyOf become unions; allOf an intersection', () => {
    expect(schemaToType({ enum: ['a', "it's", 1, null] })).toBe("'a' | 'it\\'s' | 1 | null");
    expect(schemaToType({ const: 'say "hi"' })).toBe(`'say "hi"'`);
    expect(schemaToType({ type: ['string', 'null'] })).toBe('string | null');
    expect(schemaToType({ anyOf: [{ type: 'number' }, { type: 'string' }] })).toBe('number | string');
    expect(schemaToType({ allOf: [{ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }] })).toBe(
      '{\n  a: number;\n}',
    );
  });

  test('arrays type their items; a union item is parenthesised; tuples keep their positions', () => {
    expect(schemaToType({ type: 'array', items: { type: 'string' } })).toBe('string[]');
    expect(schemaToType({ type: 'array', items: { type: ['string', 'number'] } })).toBe('(string | number)[]');
    expect(schemaToType({ type: 'array', items: [{ type: 'string' }, { type: 'number' }] })).toBe('[string, number]');
    expect(schemaToType({ type: 'array' })).toBe('unknown[]');
  });

  test('open objects get an index signature; nested objects are indented', () => {
    expect(schemaToType({ type: 'object' })).toBe('{\n  [key: string]: unknown;\n}');
    expect(schemaToType({ type: 'object', additionalProperties: { type: 'number' } })).toBe(
      '{\n  [key: string]: number;\n}',
    );
    expect(
      schemaToType({
        type: 'object',
        properties: { inner: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false } },
        additionalProperties: false,
      }),
    ).toBe('{\n  inner?: {\n    x?: string;\n  };\n}');
  });

  test('what it cannot type ($ref, no type) is unknown, never a wrong type', () => {
    expect(schemaToType({ $ref: '#/definitions/x' })).toBe('unknown');
    expect(schemaToType({ description: 'anything' })).toBe('unknown');
    expect(schemaToType(true)).toBe('unknown');
  });

  test('a description cannot close the doc comment', () => {
    const type = schemaToType({ type: 'object', properties: { a: { type: 'string', description: 'x */ y' } } });
    expect(type).toContain('/** x *\\/ y */');
  });
});
