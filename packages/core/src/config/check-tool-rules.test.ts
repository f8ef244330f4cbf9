import { beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { LoadBundleResult } from './load-bundle.ts';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem, ToolResource } from './resources.ts';

const fixture = (name: string) => join(import.meta.dir, '__fixtures__', name);
const brief = (problem: BundleProblem) => [problem.code, problem.line, problem.column, problem.path];

describe('Tool rules (spec §4.3, §15) on __fixtures__/bad-tool-rules', () => {
  let result: LoadBundleResult;
  const at = (line: number) => result.problems.filter((problem) => problem.line === line).map(brief);
  beforeAll(async () => {
    result = await loadBundle({ dir: fixture('bad-tool-rules') });
  });

  test('reports exactly the broken rules and loads nothing', () => {
    expect(result.bundle).toBeNull();
    expect(result.handlers.size).toBe(0);
    expect(result.problems.map(brief)).toEqual([
      ['E_TOOL_ENTRY_MISSING', 6, 1, 'spec.entry'],
      ['E_TOOL_EXPORTS_EMPTY', 16, 3, 'spec.exports'],
      ['E_TOOL_EXPORT_DUPLICATE', 26, 13, 'spec.exports[1].name'],
      ['E_NAME_INVALID', 31, 9, 'metadata.name'],
      ['E_NAME_INVALID', 44, 13, 'spec.exports[0].name'],
      ['E_NAME_INVALID', 45, 13, 'spec.exports[1].name'],
      ['E_NAME_TOO_LONG', 55, 13, 'spec.exports[1].name'],
      ['E_SCHEMA_INVALID', 66, 15, 'spec.exports[0].parameters.type'],
      ['E_SCHEMA_INVALID', 71, 26, 'spec.exports[1].parameters.properties.count.type'],
      ['E_SCHEMA_INVALID', 75, 9, 'spec.exports[2].parameters.requried'],
      ['E_NAME_INVALID', 80, 9, 'metadata.name'],
    ]);
  });

  test('spec §4.3: rejects a Tool without spec.entry (E_TOOL_ENTRY_MISSING), pointing at spec', () => {
    expect(at(6)).toEqual([['E_TOOL_ENTRY_MISSING', 6, 1, 'spec.entry']]);
  });

  test('spec §4.3: rejects a Tool with no exports (E_TOOL_EXPORTS_EMPTY)', () => {
    expect(at(16)).toEqual([['E_TOOL_EXPORTS_EMPTY', 16, 3, 'spec.exports']]);
  });

  test('spec §4.3: rejects a repeated export name at the second one (E_TOOL_EXPORT_DUPLICATE)', () => {
    expect(at(26)).toEqual([['E_TOOL_EXPORT_DUPLICATE', 26, 13, 'spec.exports[1].name']]);
    expect(result.problems.find((problem) => problem.line === 26)?.message).toContain('spec.exports[0]');
  });

  test('spec §2.2.3: rejects "__" inside a Tool resource name (E_NAME_INVALID)', () => {
    expect(at(31)).toEqual([['E_NAME_INVALID', 31, 9, 'metadata.name']]);
    expect(result.problems.find((problem) => problem.line === 31)?.message).toContain('"__"');
  });

  test('spec §2.2.3: rejects "__" inside an export name (E_NAME_INVALID)', () => {
    expect(at(44)).toEqual([['E_NAME_INVALID', 44, 13, 'spec.exports[0].name']]);
  });

  test('spec §6.2: rejects upper case in export and resource names (E_NAME_INVALID)', () => {
    expect(at(45)).toEqual([['E_NAME_INVALID', 45, 13, 'spec.exports[1].name']]);
    expect(at(80)).toEqual([['E_NAME_INVALID', 80, 9, 'metadata.name']]);
  });

  test('README decision 3: rejects resource__export longer than 64 characters (E_NAME_TOO_LONG)', () => {
    expect(at(55)).toEqual([['E_NAME_TOO_LONG', 55, 13, 'spec.exports[1].name']]);
    expect(result.problems.find((problem) => problem.line === 55)?.message).toContain('66 characters');
  });

  test('spec §6.1: parameters must have type: object at the top (E_SCHEMA_INVALID)', () => {
    expect(at(66)).toEqual([['E_SCHEMA_INVALID', 66, 15, 'spec.exports[0].parameters.type']]);
  });

  test('spec §15: parameters must be a valid JSON Schema, checked at the offending keyword (E_SCHEMA_INVALID)', () => {
    expect(at(71)).toEqual([['E_SCHEMA_INVALID', 71, 26, 'spec.exports[1].parameters.properties.count.type']]);
    expect(result.problems.find((problem) => problem.line === 71)?.message).toContain('allowed values');
  });

  test('spec §15: a misspelt schema keyword is an error, not silently ignored (E_SCHEMA_INVALID)', () => {
    expect(at(75)).toEqual([['E_SCHEMA_INVALID', 75, 9, 'spec.exports[2].parameters.requried']]);
    expect(result.problems.find((problem) => problem.line === 75)?.message).toContain('unknown keyword: "requried"');
  });
});

describe('Tool defaults', () => {
  test('spec §2.4.3: errorMessageLimit defaults to 1000 when absent, and a given one is kept', async () => {
    const { bundle } = await loadBundle({ dir: fixture('good') });
    const greet = bundle?.resources.get('Tool/greet') as ToolResource;
    const calc = bundle?.resources.get('Tool/calc') as ToolResource;
    expect(greet.spec.errorMessageLimit).toBe(1000);
    expect(calc.spec.errorMessageLimit).toBe(200);
  });
});
