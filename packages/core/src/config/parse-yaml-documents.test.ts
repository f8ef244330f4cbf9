import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from './load-bundle.ts';
import { parseYamlDocuments, yamlLimits } from './parse-yaml-documents.ts';
import type { BundleProblem } from './resources.ts';

const brief = (problem: BundleProblem) => [problem.code, problem.line, problem.column, problem.path];

function parse(text: string) {
  return parseYamlDocuments({ text, file: 'goondan.yaml', absoluteFile: '/bundle/goondan.yaml' });
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` as the goondan.yaml of a fresh temp bundle, loads it, and times the load. */
async function loadText(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-yaml-'));
  tempDirs.push(dir);
  writeFileSync(join(dir, 'goondan.yaml'), text);
  const started = performance.now();
  const result = await loadBundle({ dir });
  return { ...result, elapsedMs: performance.now() - started };
}

function billionLaughs(): string {
  const lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let level = 1; level < 10; level++) {
    const name = String.fromCharCode(97 + level);
    const previous = String.fromCharCode(96 + level);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('hostile YAML is refused quickly with E_YAML_LIMIT', () => {
  test('an alias bomb ("billion laughs") stops at the alias limit', async () => {
    const { bundle, problems, elapsedMs } = await loadText(billionLaughs());
    expect(bundle).toBeNull();
    expect(problems.map(brief)).toEqual([['E_YAML_LIMIT', 1, 1, '']]);
    expect(problems[0]?.message).toContain('aliases');
    expect(elapsedMs).toBeLessThan(5000);
  });

  test('a file over 1 MB is refused before it is parsed', async () => {
    const text = `apiVersion: goondan.ai/v1\ndescription: "${'x'.repeat(2 * 1024 * 1024)}"\n`;
    const { problems, elapsedMs } = await loadText(text);
    expect(problems.map(brief)).toEqual([['E_YAML_LIMIT', 1, 1, '']]);
    expect(problems[0]?.message).toContain(`at most ${yamlLimits.maxBytes} bytes`);
    expect(elapsedMs).toBeLessThan(5000);
    expect(parse(text).problems.map(brief)).toEqual([['E_YAML_LIMIT', 1, 1, '']]);
  });

  test('101 documents are too many, pointing at the 101st', async () => {
    const text = Array.from({ length: 101 }, (_, index) => `a: ${index}`).join('\n---\n');
    const { problems, elapsedMs } = await loadText(text);
    expect(problems.map(brief)).toEqual([['E_YAML_LIMIT', 201, 1, '']]);
    expect(problems[0]?.message).toContain('more than 100 YAML documents');
    expect(elapsedMs).toBeLessThan(5000);
  });

  test('100 documents and stray empty ones are fine', () => {
    const text = `${Array.from({ length: 100 }, (_, index) => `a: ${index}`).join('\n---\n')}\n---\n---\n`;
    const { documents, problems } = parse(text);
    expect(problems).toEqual([]);
    expect(documents).toHaveLength(100);
  });

  test('200-deep flow nesting stops at level 65', async () => {
    const { problems, elapsedMs } = await loadText(`a: ${'['.repeat(200)}${']'.repeat(200)}\n`);
    // The 65th "[" is at offset 3 + 64.
    expect(problems.map(brief)).toEqual([['E_YAML_LIMIT', 1, 68, '']]);
    expect(problems[0]?.message).toContain('deeper than 64');
    expect(elapsedMs).toBeLessThan(5000);
  });

  test('200-deep block nesting stops at level 65', async () => {
    const text = Array.from({ length: 200 }, (_, depth) => `${' '.repeat(depth)}k${depth}:`).join('\n');
    const { problems, elapsedMs } = await loadText(`${text} 1\n`);
    expect(problems.map(brief)).toEqual([['E_YAML_LIMIT', 65, 65, '']]);
    expect(elapsedMs).toBeLessThan(5000);
  });

  test('a megabyte of "[" is refused without building it', () => {
    const started = performance.now();
    expect(parse('['.repeat(yamlLimits.maxBytes)).problems.map(brief)).toEqual([['E_YAML_LIMIT', 1, 65, '']]);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test('64 levels are allowed', () => {
    const text = Array.from({ length: 64 }, (_, depth) => `${' '.repeat(depth)}k:`).join('\n');
    expect(parse(`${text} 1\n`).problems).toEqual([]);
  });

  test('an alias that nests a collection inside itself is refused', () => {
    expect(parse('a: &a [1, *a]\n').problems.map(brief)).toEqual([['E_YAML_LIMIT', 1, 1, '']]);
  });
});

describe('YAML syntax', () => {
  test('malformed YAML gives E_YAML_PARSE at the line and column of each error', async () => {
    const { bundle, problems } = await loadBundle({ dir: join(import.meta.dir, '__fixtures__', 'bad-yaml') });
    expect(bundle).toBeNull();
    expect(problems.map(brief)).toEqual([
      ['E_YAML_PARSE', 6, 10, ''],
      ['E_YAML_PARSE', 10, 1, ''],
    ]);
    expect(problems[0]?.message).toBe('Nested mappings are not allowed in compact mappings');
    expect(problems[1]?.message).toBe('Map keys must be unique');
  });

  test('empty documents and comment-only documents are skipped', () => {
    const { documents, problems } = parse('---\n# only a comment\n---\n---\na: 1\n---\n');
    expect(problems).toEqual([]);
    expect(documents.map((document) => document.value)).toEqual([{ a: 1 }]);
  });
});
