import { describe, expect, test } from 'bun:test';
import { formatFieldPath, locateField, pointerToPath } from './locate-field.ts';
import { parseYamlDocuments } from './parse-yaml-documents.ts';

const text = 'spec:\n  entry: ./a.ts\n  exports:\n    - name: run\n  empty:\n';
const [document] = parseYamlDocuments({ text, file: 'goondan.yaml', absoluteFile: '/b/goondan.yaml' }).documents;

describe('formatFieldPath', () => {
  test('joins keys with dots and indexes in brackets', () => {
    expect(formatFieldPath(['spec', 'exports', 1, 'name'])).toBe('spec.exports[1].name');
    expect(formatFieldPath([])).toBe('');
    expect(formatFieldPath(['spec', 'config', 'a.b'])).toBe('spec.config["a.b"]');
  });
});

describe('pointerToPath', () => {
  test('turns a JSON pointer into a path, with numbers for array indexes', () => {
    expect(pointerToPath('/spec/exports/0/name', document?.value)).toEqual(['spec', 'exports', 0, 'name']);
    expect(pointerToPath('/a~1b/c~0d', {})).toEqual(['a/b', 'c~d']);
  });
});

describe('locateField', () => {
  if (!document) throw new Error('fixture did not parse');
  test('points at a scalar value', () => {
    expect(locateField(document, ['spec', 'entry'])).toEqual({ line: 2, column: 10, exact: true });
    expect(locateField(document, ['spec', 'exports', 0, 'name'])).toEqual({ line: 4, column: 13, exact: true });
  });

  test('points at the key of a collection, an empty value, or when asked', () => {
    expect(locateField(document, ['spec', 'exports'])).toEqual({ line: 3, column: 3, exact: true });
    expect(locateField(document, ['spec', 'empty'])).toEqual({ line: 5, column: 3, exact: true });
    expect(locateField(document, ['spec', 'entry'], { at: 'key' })).toEqual({ line: 2, column: 3, exact: true });
  });

  test('falls back to the nearest existing parent for a missing field', () => {
    expect(locateField(document, ['spec', 'missing', 'deeper'])).toEqual({ line: 1, column: 1, exact: false });
    expect(locateField(document, ['spec', 'exports', 0, 'parameters'])).toEqual({ line: 4, column: 7, exact: false });
  });
});
