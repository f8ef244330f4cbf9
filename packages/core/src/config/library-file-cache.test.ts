import { afterAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { libraryCacheDir } from './library-file-cache.ts';
import { loadBundle } from './load-bundle.ts';

const fixture = (name: string) => join(import.meta.dir, '__fixtures__', name);
const scratch = mkdtempSync(join(tmpdir(), 'gdn-library-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
/** A fresh copy of the lib-basic fixture (so its text can change) and an empty cache directory. */
function setup(extraYaml = ''): { library: string; cacheDir: string } {
  counter += 1;
  const library = join(scratch, `lib-${counter}`);
  cpSync(fixture('lib-basic'), library, { recursive: true });
  if (extraYaml)
    writeFileSync(join(library, 'goondan.yaml'), `${readFileSync(join(library, 'goondan.yaml'))}${extraYaml}`);
  return { library, cacheDir: join(scratch, `cache-${counter}`) };
}

/** What a load yields, without object identity: resources by key, problems, handler names. */
async function load(options: { library: string; cacheDir: string | null }) {
  const result = await loadBundle({
    dir: fixture('override'),
    libraries: [options.library],
    libraryCacheDir: options.cacheDir,
  });
  return {
    resources: result.bundle ? Object.fromEntries(result.bundle.resources) : null,
    problems: result.problems,
    handlers: Object.fromEntries([...result.handlers].map(([key, value]) => [key, Object.keys(value)])),
  };
}

const entries = (cacheDir: string) => readdirSync(cacheDir).filter((name) => name.endsWith('.json'));

describe('library file cache', () => {
  test('a second load reads a library from the cache and yields the same bundle as an uncached load', async () => {
    const { library, cacheDir } = setup();
    const uncached = await load({ library, cacheDir: null });
    expect(uncached.problems).toEqual([]);
    const first = await load({ library, cacheDir });
    // The library's file and the bundle's own.
    expect(entries(cacheDir)).toHaveLength(2);
    const second = await load({ library, cacheDir });
    expect(first).toEqual(uncached);
    expect(second).toEqual(uncached);
    expect(second.resources?.['Tool/shout']?.location).toEqual({
      file: relative(fixture('override'), join(library, 'goondan.yaml')),
      line: 11,
      column: 1,
      baseDir: library,
    });
  });

  test('a changed library is checked again: its new problem is reported, and nothing is cached for it', async () => {
    const { library, cacheDir } = setup();
    await load({ library, cacheDir });
    writeFileSync(
      join(library, 'goondan.yaml'),
      `${readFileSync(join(library, 'goondan.yaml'))}---\napiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: broken }\nspec:\n  entry: ./tools/echo.ts\n  exports:\n    - name: say\n      parameters: { type: object, requried: [x] }\n`,
    );
    for (let round = 0; round < 2; round++) {
      const { problems } = await load({ library, cacheDir });
      expect(problems.map((problem) => [problem.code, problem.line, problem.path])).toEqual([
        ['E_SCHEMA_INVALID', 27, 'spec.exports[0].parameters.requried'],
      ]);
    }
    // The bundle's own file and the library's text before the change; nothing for the changed text.
    expect(entries(cacheDir)).toHaveLength(2);
  });

  test('a problem the bundle-wide checks find in a cached library document has its exact position', async () => {
    const agent =
      '---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: lib-agent }\nspec:\n  modelConfig: { modelRef: Model/scripted }\n  tools: [Tool/echo, Tool/nowhere]\n';
    const { library, cacheDir } = setup(agent);
    const first = await load({ library, cacheDir });
    expect(first.problems.map((problem) => [problem.code, problem.line, problem.column, problem.path])).toEqual([
      ['E_REF_UNRESOLVED', 24, 28, 'spec.modelConfig.modelRef'],
      ['E_REF_UNRESOLVED', 25, 22, 'spec.tools[1]'],
    ]);
    // The library's own documents had no problem, so they were cached (beside the bundle's own file); the reference
    // is checked at every load.
    expect(entries(cacheDir)).toHaveLength(2);
    expect(await load({ library, cacheDir })).toEqual(first);
  });

  test("the bundle's own goondan.yaml is cached too: an edit is checked again, its problem reported at every load", async () => {
    const { library, cacheDir } = setup();
    const dir = join(scratch, `bundle-${counter}`);
    cpSync(fixture('override'), dir, { recursive: true });
    const loadOwn = async () =>
      (await loadBundle({ dir, libraries: [library], libraryCacheDir: cacheDir })).problems.map((problem) => [
        problem.code,
        problem.line,
        problem.path,
      ]);
    const expected = (await loadBundle({ dir, libraries: [library], libraryCacheDir: null })).bundle;
    expect(await loadOwn()).toEqual([]);
    expect(entries(cacheDir)).toHaveLength(2);
    const cached = await loadBundle({ dir, libraries: [library], libraryCacheDir: cacheDir });
    expect(cached.bundle).toEqual(expected);
    writeFileSync(
      join(dir, 'goondan.yaml'),
      `${readFileSync(join(dir, 'goondan.yaml'))}---\napiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: broken }\nspec:\n  entry: ./tools/echo.ts\n  exports:\n    - name: say\n      parameters: { type: object, requried: [x] }\n`,
    );
    for (let round = 0; round < 2; round++) {
      expect(await loadOwn()).toEqual([['E_SCHEMA_INVALID', 25, 'spec.exports[0].parameters.requried']]);
    }
    expect(entries(cacheDir)).toHaveLength(2);
  });

  test('a corrupt entry or an unwritable cache directory is a miss, never a failure', async () => {
    const { library, cacheDir } = setup();
    const expected = await load({ library, cacheDir: null });
    await load({ library, cacheDir });
    const [entry] = entries(cacheDir);
    writeFileSync(join(cacheDir, entry!), '{"format":1,"documents":[{"value":');
    expect(await load({ library, cacheDir })).toEqual(expected);
    writeFileSync(join(cacheDir, entry!), JSON.stringify({ format: 1, documents: [{ value: 'x', line: 1 }] }));
    expect(await load({ library, cacheDir })).toEqual(expected);
    expect(JSON.parse(readFileSync(join(cacheDir, entry!), 'utf8')).documents).toHaveLength(2);
    const blocked = join(scratch, `blocked-${counter}`);
    writeFileSync(blocked, 'a file where the cache directory should be');
    expect(await load({ library, cacheDir: join(blocked, 'cache') })).toEqual(expected);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  test('the cache lives under XDG_CACHE_HOME, else ~/.cache', () => {
    expect(libraryCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/goondan/library-bundles');
    expect(libraryCacheDir({})).toEndWith('/.cache/goondan/library-bundles');
  });
});
