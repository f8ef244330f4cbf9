import { describe, expect, test } from 'bun:test';
import { parseObjectRef, parseRefEntry, refKey } from './object-ref.ts';

describe('parseObjectRef', () => {
  test('reads the string form "Kind/name"', () => {
    expect(parseObjectRef('Tool/bash')).toEqual({ kind: 'Tool', name: 'bash' });
  });

  test('reads the object form { kind, name }', () => {
    expect(parseObjectRef({ kind: 'Model', name: 'gpt' })).toEqual({ kind: 'Model', name: 'gpt' });
  });

  test('reads the package form { kind, name, package }', () => {
    expect(parseObjectRef({ kind: 'Tool', name: 'bash', package: '@goondan/base' })).toEqual({
      kind: 'Tool',
      name: 'bash',
      package: '@goondan/base',
    });
  });

  test('returns null for anything else', () => {
    for (const bad of [
      'bash',
      'Tool/',
      '/bash',
      'Tool/a/b',
      '',
      42,
      null,
      [],
      { kind: 'Tool' },
      { kind: 'Tool', name: 'x', extra: 1 },
      { kind: 'Tool', name: 'x', package: '' },
    ]) {
      expect(parseObjectRef(bad)).toBeNull();
    }
  });
});

describe('parseRefEntry', () => {
  test('accepts a bare ObjectRef or { ref, config }', () => {
    expect(parseRefEntry('Tool/bash')).toEqual({ ref: { kind: 'Tool', name: 'bash' } });
    expect(parseRefEntry({ ref: { kind: 'Tool', name: 'bash' }, config: { a: 1 } })).toEqual({
      ref: { kind: 'Tool', name: 'bash' },
      config: { a: 1 },
    });
  });

  test('refuses unknown fields beside ref and a config that is not a mapping', () => {
    expect(parseRefEntry({ ref: 'Tool/bash', confg: {} })).toBeNull();
    expect(parseRefEntry({ ref: 'Tool/bash', config: 'x' })).toBeNull();
  });
});

test('refKey builds the "Kind/name" key of Bundle.resources', () => {
  expect(refKey('Tool', 'bash')).toBe('Tool/bash');
});
