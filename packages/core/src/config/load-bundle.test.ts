import { describe, expect, test } from 'bun:test';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestToolContext } from '../testing.ts';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

const fixture = (name: string) => join(import.meta.dir, '__fixtures__', name);
const brief = (problem: BundleProblem) => [problem.code, problem.line, problem.column, problem.path];

describe('loadBundle', () => {
  test('loads a valid bundle: every resource by Kind/name with its location, and the handlers', async () => {
    const { bundle, problems, handlers } = await loadBundle({ dir: fixture('good') });
    expect(problems).toEqual([]);
    expect(bundle?.rootDir).toBe(fixture('good'));
    expect([...(bundle?.resources.keys() ?? [])]).toEqual([
      'Model/scripted',
      'Tool/greet',
      'Tool/calc',
      'Extension/logger',
      'Agent/helper',
      'Swarm/main',
    ]);
    const greet = bundle?.resources.get('Tool/greet');
    expect(greet?.location).toEqual({ file: 'goondan.yaml', line: 13, column: 1, baseDir: fixture('good') });
    expect(greet?.metadata).toEqual({ name: 'greet', labels: { tier: 'demo' } });
    expect(greet?.library).toBeUndefined();
    expect([...handlers.keys()]).toEqual(['Tool/greet', 'Tool/calc']);
  });

  test('reports all problems at once: a fixture with five different problems yields all five', async () => {
    const { bundle, problems, handlers } = await loadBundle({ dir: fixture('bad-many') });
    expect(bundle).toBeNull();
    expect(handlers.size).toBe(0);
    expect(problems.map(brief)).toEqual([
      ['E_TOOL_ENTRY_MISSING', 6, 1, 'spec.entry'],
      ['E_TOOL_EXPORT_DUPLICATE', 9, 13, 'spec.exports[1].name'],
      ['E_RESOURCE_KIND_UNKNOWN', 12, 7, 'kind'],
      ['E_REF_UNRESOLVED', 22, 22, 'spec.tools[1]'],
      ['E_YAML_PARSE', 28, 3, ''],
    ]);
  });

  test('every problem carries file, suggestion and help link', async () => {
    const { problems } = await loadBundle({ dir: fixture('bad-many') });
    for (const problem of problems) {
      expect(problem.file).toBe('goondan.yaml');
      expect(problem.suggestion.length).toBeGreaterThan(0);
      expect(problem.helpUrl).toEndWith(`${problem.code}.md`);
    }
  });

  test('a resource declared twice is E_RESOURCE_DUPLICATE at the second, naming where the first is', async () => {
    const { bundle, problems } = await loadBundle({ dir: fixture('bad-duplicates') });
    expect(bundle).toBeNull();
    // Model/same and Agent/same differ in kind, so only the second Model is a duplicate.
    expect(problems.map(brief)).toEqual([['E_RESOURCE_DUPLICATE', 18, 9, 'metadata.name']]);
    expect(problems[0]?.message).toBe('Model/same is declared twice; the first is at goondan.yaml:1:1');
  });

  test('a directory without goondan.yaml is one E_BUNDLE_NOT_FOUND problem', async () => {
    const { bundle, problems } = await loadBundle({ dir: join(fixture('good'), 'tools') });
    expect(bundle).toBeNull();
    expect(problems.map(brief)).toEqual([['E_BUNDLE_NOT_FOUND', 1, 1, '']]);
  });
});

describe('libraries', () => {
  test("a user resource overrides a library's of the same Kind/name; the library's others stay available", async () => {
    const { bundle, problems, handlers } = await loadBundle({
      dir: fixture('override'),
      libraries: [fixture('lib-basic')],
    });
    expect(problems).toEqual([]);
    const echo = bundle?.resources.get('Tool/echo');
    const shout = bundle?.resources.get('Tool/shout');
    expect(echo?.library).toBeUndefined();
    expect(echo?.location.file).toBe('goondan.yaml');
    expect(shout?.library).toBe('@example/lib-basic');
    expect(shout?.location).toEqual({
      file: '../lib-basic/goondan.yaml',
      line: 11,
      column: 1,
      baseDir: fixture('lib-basic'),
    });
    const ctx = createTestToolContext({ workdir: import.meta.dir });
    expect(await handlers.get('Tool/echo')?.say?.(ctx, {})).toBe('user echo');
    expect(await handlers.get('Tool/shout')?.say?.(ctx, {})).toBe('LIBRARY SHOUT');
  });

  test("a library's Tool that no Agent lists is imported at its first call, not when the bundle loads", async () => {
    const imports = () => (globalThis as { __libLazyImports?: number }).__libLazyImports ?? 0;
    const { problems, handlers } = await loadBundle({
      dir: fixture('override'),
      libraries: [fixture('lib-basic'), fixture('lib-lazy')],
    });
    expect(problems).toEqual([]);
    expect(imports()).toBe(0);
    const ctx = createTestToolContext({ workdir: import.meta.dir });
    const unlisted = handlers.get('Tool/unlisted')!;
    expect(await unlisted.ping!(ctx, {})).toBe('pong after 1 import(s)');
    expect(await unlisted.ping!(ctx, {})).toBe('pong after 1 import(s)');
    expect(imports()).toBe(1);
    // An export the module lacks is found at the call, as the error a handler throws.
    await expect(unlisted.missing!(ctx, {}) as Promise<unknown>).rejects.toThrow(
      'has no handler function for export "missing"',
    );
  });

  test('the same resource from two libraries is E_RESOURCE_DUPLICATE in the library file', async () => {
    const { problems } = await loadBundle({
      dir: fixture('override'),
      libraries: [fixture('lib-basic'), fixture('lib-basic')],
    });
    expect(problems.map((problem) => [problem.code, problem.file, problem.line])).toEqual([
      ['E_RESOURCE_DUPLICATE', '../lib-basic/goondan.yaml', 5],
      ['E_RESOURCE_DUPLICATE', '../lib-basic/goondan.yaml', 14],
    ]);
  });

  test('the built-in tools of @goondan/base load as a library', async () => {
    const base = resolve(import.meta.dir, '../../../base');
    const { bundle, problems } = await loadBundle({ dir: fixture('good'), libraries: [base] });
    expect(problems).toEqual([]);
    expect(bundle?.resources.get('Tool/bash')?.library).toBe('@goondan/base');
  });

  test('checkEntries: false reads the declarations of a bundle whose entry modules are missing or broken', async () => {
    const checked = await loadBundle({ dir: fixture('bad-entry') });
    expect(checked.bundle).toBeNull();
    expect(checked.problems.map((problem) => problem.code)).toContain('E_TOOL_ENTRY_NOT_FOUND');
    const { bundle, problems, handlers } = await loadBundle({ dir: fixture('bad-entry'), checkEntries: false });
    expect(problems).toEqual([]);
    expect(bundle?.resources.get('Tool/partial')?.kind).toBe('Tool');
    expect(handlers.size).toBe(0);
  });

  test('an entry that is a symbolic link loop is a problem at that entry, not a failure of the whole load', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gdn-entry-loop-'));
    try {
      await symlink('loop', join(dir, 'loop'));
      const exports = '[{ name: run, description: x, parameters: { type: object } }]';
      await writeFile(
        join(dir, 'goondan.yaml'),
        `apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: t }\nspec: { entry: ./loop, exports: ${exports} }\n` +
          '---\napiVersion: goondan.ai/v1\nkind: Connector\nmetadata: { name: c }\nspec: { entry: ./loop }\n',
      );
      const { problems } = await loadBundle({ dir, libraryCacheDir: null });
      expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
        ['E_TOOL_ENTRY_NOT_FOUND', 'spec.entry'],
        ['E_CONNECTOR_ENTRY_NOT_FOUND', 'spec.entry'],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
