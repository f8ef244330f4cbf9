import { afterAll, expect, test } from 'bun:test';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scaffoldFiles } from '../src/init/scaffold-files.ts';
import { cleanupTempDirs, cliEnv, makeTempDir, repoRoot } from './helpers.ts';
import { type PackageJson, scratchLockfile } from './scratch-lockfile.ts';

// The costly parts are npm's: packing, and above all installing the packages' dependency tree (the AI SDK, the Bun
// binary, ...) and deleting it afterwards. So the workspaces are packed by one npm, and everything is installed once,
// into the folder the person works in: create-goondan (which brings @goondan/cli, which brings the other packages)
// and the scaffold's devDependencies. Both ways of starting a bundle, and the bundle itself, use that one install.
// GDN_TEST_TIMINGS=1 prints how long each step took.

const timings: [string, number][] = [];
afterAll(async () => {
  const started = performance.now();
  await cleanupTempDirs();
  timings.push(['removing the temp folders', performance.now() - started]);
  if (process.env.GDN_TEST_TIMINGS)
    console.error(timings.map(([step, ms]) => `${(ms / 1000).toFixed(1).padStart(6)}s  ${step}`).join('\n'));
});

/** The environment of a child npm: none of the npm_* variables `npm test` exports, which would steer it. */
function npmEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(cliEnv()).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

async function run(command: string[], options: { cwd: string; stdin?: string }) {
  const started = performance.now();
  const proc = Bun.spawn(command, {
    cwd: options.cwd,
    env: npmEnv(),
    stdin: options.stdin === undefined ? 'ignore' : new TextEncoder().encode(options.stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  timings.push([
    command
      .slice(0, 3)
      .join(' ')
      .replace(/^\S*\//, ''),
    performance.now() - started,
  ]);
  return { exitCode: proc.exitCode, stdout, stderr, output: `$ ${command.join(' ')}\n${stdout}\n${stderr}` };
}

/** Runs a command that must succeed; a failure shows what it printed. */
async function ok(command: string[], options: { cwd: string; stdin?: string }) {
  const result = await run(command, options);
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}\n${result.output}`);
  return result;
}

/** `npm pack` of every workspace in one npm process: package name → tarball path, and the files of each. */
async function packWorkspaces(destination: string) {
  const { stdout } = await ok(['npm', 'pack', '--workspaces', '--json', '--pack-destination', destination], {
    cwd: repoRoot,
  });
  const packs = JSON.parse(stdout) as { name: string; filename: string; files: { path: string }[] }[];
  return {
    tarballs: Object.fromEntries(packs.map((pack) => [pack.name, join(destination, pack.filename)])),
    files: Object.fromEntries(packs.map((pack) => [pack.name, pack.files.map((file) => file.path)])),
  };
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

async function installedVersion(home: string, name: string): Promise<string> {
  return (JSON.parse(await readFile(join(home, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

test('the packed packages install into an empty folder, offline, and gdn init, npm create goondan, validate, types, run and chat work there', async () => {
  const packs = await makeTempDir('gdn-packs-');
  const { tarballs, files } = await packWorkspaces(packs);
  expect(Object.keys(tarballs).sort()).toEqual([
    '@goondan/assistant',
    '@goondan/base',
    '@goondan/cli',
    '@goondan/core',
    'create-goondan',
  ]);
  expect(files['@goondan/cli']).toContain('LICENSE');
  expect(files['@goondan/cli']!.filter((file) => file.endsWith('.test.ts'))).toEqual([]);

  // What `gdn init` will write as the bundle's package.json (checked against the written file below).
  const scaffolded = JSON.parse(scaffoldFiles({ name: 'my-bot', model: 'scripted' })['package.json']!) as PackageJson;
  expect(Object.keys(scaffolded.dependencies ?? {})).toEqual(['@goondan/cli', '@goondan/core']);

  // One install into an empty folder outside the repository: create-goondan alone among the packages, so
  // @goondan/cli, core, base, assistant and Bun are there only because the packages themselves depend on them (as
  // `npm create goondan` and `npx @goondan/cli` install them); plus the scaffold's devDependencies for tsc.
  const home = await makeTempDir('gdn-home-');
  await installOffline(
    home,
    {
      name: 'gdn-home',
      private: true,
      dependencies: { 'create-goondan': '0.1.0' },
      devDependencies: scaffolded.devDependencies,
    },
    tarballs,
  );
  const bin = (name: string) => join(home, 'node_modules', '.bin', name);

  // `npx @goondan/cli init my-bot`: the CLI, installed from its tarball, scaffolds the bundle.
  const bot = join(home, 'my-bot');
  await ok([bin('gdn'), 'init', 'my-bot'], { cwd: home });
  for (const file of ['goondan.yaml', 'tools/greet/index.ts', 'tsconfig.json', '.gitignore', 'README.md']) {
    expect(await Bun.file(join(bot, file)).exists()).toBe(true);
  }
  expect(await readFile(join(bot, 'goondan-tools.d.ts'), 'utf8')).toContain('export interface ToolInputs');
  // `cd my-bot && npm install` would install exactly what is installed above it: the same dependencies, in versions
  // their ranges accept (npm, like Node and tsc, finds them in the parent folder's node_modules).
  const written = JSON.parse(await readFile(join(bot, 'package.json'), 'utf8')) as PackageJson;
  expect(written).toEqual(scaffolded);
  for (const [name, range] of Object.entries({ ...written.dependencies, ...written.devDependencies }))
    expect({ name, satisfied: Bun.semver.satisfies(await installedVersion(home, name), range) }).toEqual({
      name,
      satisfied: true,
    });

  // The tool's input type comes from the YAML schema: the scaffold type-checks, and a field the schema lacks fails.
  // One tsc run shows both: a copy of the handler that reads `input.nickname` is the only file with errors. tsc
  // works alone for seconds, so it runs while the gdn commands below do.
  const handler = join(bot, 'tools', 'greet', 'index.ts');
  const misuse = (await readFile(handler, 'utf8')).replace('input.name', 'input.nickname');
  expect(misuse).toContain('input.nickname');
  await writeFile(join(bot, 'tools', 'greet', 'misuse.ts'), misuse);
  const typecheck = run([bin('tsc'), '-p', 'tsconfig.json'], { cwd: bot });

  try {
    // `npm create goondan other-bot`: npm starts create-goondan's bin, which runs the CLI installed beside it.
    const created = await ok([bin('create-goondan'), 'other-bot', '--model', 'ollama'], { cwd: home });
    expect(created.stdout).toContain('Created a bundle in other-bot (Model: ollama)');
    expect(await readFile(join(home, 'other-bot', 'goondan.yaml'), 'utf8')).toContain('provider: openai-compatible');

    const gdn = bin('gdn');
    expect((await ok([gdn, 'validate'], { cwd: bot })).stdout).toContain('valid (1 Tool, 1 Agent, 1 Model)');
    expect((await ok([gdn, 'types', '--check'], { cwd: bot })).stdout).toContain('up to date');
    const call = await ok([gdn, 'tools', 'call', 'greet__hello', '{"name":"Ada"}'], { cwd: bot });
    expect(call.stdout).toContain('Hello, Ada!');
    expect((await ok([gdn, 'run', '--input', 'Please greet Ada'], { cwd: bot })).stdout).toContain('HELLO, ADA!');
    const chat = await ok([gdn, 'chat'], { cwd: bot, stdin: 'Please greet Ada\n/exit\n' });
    expect(chat.stdout).toContain('HELLO, ADA!');
  } finally {
    // A failure above still waits for tsc, so the folder is not removed under it.
    await typecheck;
  }

  const checked = await typecheck;
  expect(checked.exitCode).not.toBe(0);
  expect(checked.stdout).toContain("Property 'nickname' does not exist");
  const errorLines = checked.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
  expect(errorLines.length).toBeGreaterThan(0);
  expect(errorLines.filter((line) => !line.startsWith('tools/greet/misuse.ts('))).toEqual([]);
}, 900_000);
