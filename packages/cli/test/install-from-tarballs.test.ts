import { afterAll, expect, test } from 'bun:test';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, cliEnv, makeTempDir, repoRoot } from './helpers.ts';
import { type PackageJson, scratchLockfile } from './scratch-lockfile.ts';

afterAll(cleanupTempDirs);

const workspaces = ['core', 'base', 'assistant', 'cli'];
/** Package name → its folder under packages/. */
const packed: Record<string, string> = {
  ...Object.fromEntries(workspaces.map((name) => [`@goondan/${name}`, name])),
  'create-goondan': 'create-goondan',
};

/** The environment of a child npm: none of the npm_* variables `npm test` exports, which would steer it. */
function npmEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(cliEnv()).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

async function run(command: string[], options: { cwd: string; stdin?: string }) {
  const proc = Bun.spawn(command, {
    cwd: options.cwd,
    env: npmEnv(),
    stdin: options.stdin === undefined ? 'ignore' : new TextEncoder().encode(options.stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { exitCode: proc.exitCode, stdout, stderr, output: `$ ${command.join(' ')}\n${stdout}\n${stderr}` };
}

/** Runs a command that must succeed; a failure shows what it printed. */
async function ok(command: string[], options: { cwd: string; stdin?: string }) {
  const result = await run(command, options);
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}\n${result.output}`);
  return result;
}

/** Installs `packageJson` into `dir` from the packed tarballs, offline (npm ci with a lock pinned to ours). */
async function installOffline(dir: string, packageJson: PackageJson, tarballs: Record<string, string>) {
  const { packageJson: pinned, lockfile } = await scratchLockfile({
    repoLockfile: join(repoRoot, 'package-lock.json'),
    appDir: dir,
    packageJson,
    tarballs,
  });
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(pinned, null, 2)}\n`);
  await writeFile(join(dir, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
  await ok(['npm', 'ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir });
}

test('the packed packages install into an empty folder, offline, and gdn init, validate, types, run and chat work there', async () => {
  const packs = await makeTempDir('gdn-packs-');
  const tarballs: Record<string, string> = {};
  for (const [name, folder] of Object.entries(packed)) {
    const { stdout } = await ok(['npm', 'pack', '--pack-destination', packs], {
      cwd: join(repoRoot, 'packages', folder),
    });
    tarballs[name] = join(packs, stdout.trim().split('\n').at(-1)!);
  }
  expect(Object.keys(tarballs).sort()).toEqual([
    '@goondan/assistant',
    '@goondan/base',
    '@goondan/cli',
    '@goondan/core',
    'create-goondan',
  ]);
  const cliFiles = (await ok(['tar', 'tzf', tarballs['@goondan/cli']!], { cwd: packs })).stdout;
  expect(cliFiles).toContain('package/LICENSE');
  expect(cliFiles).not.toContain('.test.ts');

  // `npx @goondan/cli init my-bot`: the CLI alone, installed from its tarball, scaffolds the bundle.
  const tool = await makeTempDir('gdn-npx-');
  await installOffline(tool, { name: 'npx-cache', private: true, dependencies: { '@goondan/cli': '0.1.0' } }, tarballs);
  const home = await makeTempDir('gdn-home-');
  const bot = join(home, 'my-bot');
  await ok([join(tool, 'node_modules', '.bin', 'gdn'), 'init', 'my-bot'], { cwd: home });
  for (const file of ['goondan.yaml', 'tools/greet/index.ts', 'tsconfig.json', '.gitignore', 'README.md']) {
    expect(await Bun.file(join(bot, file)).exists()).toBe(true);
  }
  expect(await readFile(join(bot, 'goondan-tools.d.ts'), 'utf8')).toContain('export interface ToolInputs');

  // `npm create goondan other-bot`: npm installs create-goondan (and the CLI it runs) and starts its bin.
  const creator = await makeTempDir('gdn-create-');
  await installOffline(
    creator,
    { name: 'npm-exec', private: true, dependencies: { 'create-goondan': '0.1.0' } },
    tarballs,
  );
  const created = await ok(
    [join(creator, 'node_modules', '.bin', 'create-goondan'), 'other-bot', '--model', 'ollama'],
    {
      cwd: home,
    },
  );
  expect(created.stdout).toContain('Created a bundle in other-bot (Model: ollama)');
  expect(await readFile(join(home, 'other-bot', 'goondan.yaml'), 'utf8')).toContain('provider: openai-compatible');

  // `cd my-bot && npm install`, with the scaffolded package.json.
  const scaffolded = JSON.parse(await readFile(join(bot, 'package.json'), 'utf8')) as PackageJson;
  expect(Object.keys(scaffolded.dependencies ?? {})).toEqual(['@goondan/cli', '@goondan/core']);
  await installOffline(bot, scaffolded, tarballs);
  const gdn = join(bot, 'node_modules', '.bin', 'gdn');

  expect((await ok([gdn, 'validate'], { cwd: bot })).stdout).toContain('valid (1 Tool, 1 Agent, 1 Model)');
  expect((await ok([gdn, 'types', '--check'], { cwd: bot })).stdout).toContain('up to date');
  const call = await ok([gdn, 'tools', 'call', 'greet__hello', '{"name":"Ada"}'], { cwd: bot });
  expect(call.stdout).toContain('Hello, Ada!');
  expect((await ok([gdn, 'run', '--input', 'Please greet Ada'], { cwd: bot })).stdout).toContain('HELLO, ADA!');
  const chat = await ok([gdn, 'chat'], { cwd: bot, stdin: 'Please greet Ada\n/exit\n' });
  expect(chat.stdout).toContain('HELLO, ADA!');

  // The tool's input type comes from the YAML schema: the scaffold type-checks, and a field the schema lacks fails.
  const tsc = join(bot, 'node_modules', '.bin', 'tsc');
  await ok([tsc, '-p', 'tsconfig.json'], { cwd: bot });
  const handler = join(bot, 'tools', 'greet', 'index.ts');
  await writeFile(handler, (await readFile(handler, 'utf8')).replace('input.name', 'input.nickname'));
  const broken = await run([tsc, '-p', 'tsconfig.json'], { cwd: bot });
  expect(broken.exitCode).not.toBe(0);
  expect(broken.stdout).toContain("Property 'nickname' does not exist");
}, 900_000);
