// Hostile node_modules under a bundle's Package dependencies (docs/packages.md): every broken package is a problem
// at the dependency that names it, with the others still checked; nothing throws, hangs or floods the output.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isSemverRange } from './find-installed-package.ts';
import { loadBundle } from './load-bundle.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function bundle(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gdn-deps-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const packageYaml = (name: string, version: string, dependencies: [string, string][]) =>
  `apiVersion: goondan.ai/v1
kind: Package
metadata: { name: "${name}" }
spec:
  version: "${version}"
  dependencies:
${dependencies.map(([dep, range]) => `    - { name: "${dep}", version: "${range}" }`).join('\n')}
`;

const model = (name: string) =>
  `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: ${name} }\nspec: { provider: scripted, model: x, script: [] }\n`;

/** An installed package with a goondan.yaml declaring Model/<name>; `packageJson` replaces its package.json. */
function installed(name: string, packageJson: string, yaml = model(name)): Record<string, string> {
  return { [`node_modules/${name}/package.json`]: packageJson, [`node_modules/${name}/goondan.yaml`]: yaml };
}

describe('dependencies that are installed but broken', () => {
  test('a symlink loop, a package.json that is not JSON, an oversized one and a malformed version: one problem each, all at once', async () => {
    const dir = await bundle({
      'goondan.yaml': `${packageYaml('app', '0.1.0', [
        ['looped', '*'],
        ['not-json', '*'],
        ['huge', '*'],
        ['bad-version', '*'],
        ['fine', '^1.0.0'],
      ])}---\n${model('main')}`,
      ...installed('not-json', '{ this is not json'),
      ...installed('huge', JSON.stringify({ name: 'huge', version: `1.0.0-${'a'.repeat(2_000_000)}` })),
      ...installed('bad-version', JSON.stringify({ name: 'bad-version', version: `1.0.0-${'a'.repeat(300)}` })),
      ...installed('fine', JSON.stringify({ name: 'fine', version: '1.2.0' })),
    });
    await symlink('looped', join(dir, 'node_modules', 'looped'));
    const { problems } = await loadBundle({ dir, checkEntries: false });
    const byPath = Object.fromEntries(problems.map((problem) => [problem.path, problem]));
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['E_PACKAGE_INVALID', 'spec.dependencies[0].name'],
      ['E_PACKAGE_INVALID', 'spec.dependencies[1].name'],
      ['E_PACKAGE_INVALID', 'spec.dependencies[2].name'],
      ['E_PACKAGE_INVALID', 'spec.dependencies[3].name'],
    ]);
    expect(byPath['spec.dependencies[0].name']?.message).toContain('ELOOP');
    expect(byPath['spec.dependencies[1].name']?.message).toContain('not JSON');
    expect(byPath['spec.dependencies[2].name']?.message).toContain('bytes');
    expect(byPath['spec.dependencies[3].name']?.message).toContain('not a semver version');
    for (const problem of problems) expect(problem.message.length).toBeLessThan(300);
  });

  test('a package depending on itself is E_PACKAGE_INVALID; a cycle A → B → A still checks the range B gives A', async () => {
    const dir = await bundle({
      'goondan.yaml': `${packageYaml('app', '0.1.0', [
        ['app', '*'],
        ['a', '^1.0.0'],
      ])}---\n${model('main')}`,
      ...installed('a', JSON.stringify({ name: 'a', version: '1.0.0' }), packageYaml('a', '1.0.0', [['b', '*']])),
      ...installed('b', JSON.stringify({ name: 'b', version: '1.0.0' }), packageYaml('b', '1.0.0', [['a', '^2.0.0']])),
    });
    const { problems } = await loadBundle({ dir, checkEntries: false });
    expect(problems.map((problem) => [problem.code, problem.file, problem.path])).toEqual([
      ['E_PACKAGE_INVALID', 'goondan.yaml', 'spec.dependencies[0].name'],
      ['E_PACKAGE_VERSION', 'node_modules/b/goondan.yaml', 'spec.dependencies[0].version'],
    ]);
    expect(problems[1]?.message).toContain('a 1.0.0');
  });

  test('a range that makes a backtracking pattern take exponential time is refused at once', () => {
    const hostile = `${'1   '.repeat(20)}!`; // 12 s with the pattern that let spaces start a comparator
    const started = performance.now();
    expect(isSemverRange(hostile)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    for (const range of ['^0.1.0', '~1.2', '>=1 <2', '>= 1.2.3', '1.x || 2', '1.2.3 - 2.3.4', '*']) {
      expect(isSemverRange(range)).toBe(true);
    }
  });
});
