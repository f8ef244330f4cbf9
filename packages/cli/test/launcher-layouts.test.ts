import { afterAll, expect, test } from 'bun:test';
import { chmod, copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, cliEnv, launcher, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

/**
 * A folder laid out as npm installs @goondan/cli from the registry, outside this repository: the launcher copied in,
 * the CLI's sources linked, and Bun placed by `placeBun`.
 */
async function installedLayout(placeBun: (nodeModules: string) => Promise<void>): Promise<string> {
  const root = await makeTempDir('gdn-layout-');
  const cli = join(root, 'node_modules', '@goondan', 'cli');
  await mkdir(join(cli, 'bin'), { recursive: true });
  await copyFile(launcher, join(cli, 'bin', 'gdn'));
  await chmod(join(cli, 'bin', 'gdn'), 0o755);
  await symlink(join(launcher, '..', '..', 'src'), join(cli, 'src'));
  await placeBun(join(root, 'node_modules'));
  return join(cli, 'bin', 'gdn');
}

async function version(gdn: string) {
  const proc = Bun.spawn([gdn, '--version'], { env: cliEnv(), stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { exitCode: proc.exitCode, stdout, stderr };
}

test('finds Bun nested beside the CLI (node_modules/@goondan/cli/node_modules/bun)', async () => {
  const gdn = await installedLayout(async (nodeModules) => {
    const bin = join(nodeModules, '@goondan', 'cli', 'node_modules', 'bun', 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(process.execPath, join(bin, 'bun.exe'));
  });
  const result = await version(gdn);
  expect(result.stderr).toBe('');
  expect(result.stdout.trim()).toBe('gdn 0.1.0');
});

test("runs without Bun's postinstall (--ignore-scripts, pnpm): the platform package's binary is used", async () => {
  const gdn = await installedLayout(async (nodeModules) => {
    // What npm leaves when install scripts do not run: a placeholder script, and the binary in @oven/bun-<platform>.
    await mkdir(join(nodeModules, 'bun', 'bin'), { recursive: true });
    const placeholder = join(nodeModules, 'bun', 'bin', 'bun.exe');
    await writeFile(placeholder, 'echo "Error: Bun\'s postinstall script was not run." >&2\nexit 1\n');
    await chmod(placeholder, 0o755); // npm makes every `bin` of a package executable
    const platform = join(nodeModules, '@oven', `bun-${process.platform}-${process.arch}`, 'bin');
    await mkdir(platform, { recursive: true });
    await symlink(process.execPath, join(platform, 'bun'));
  });
  const result = await version(gdn);
  expect(result.stderr).toBe('');
  expect(result.stdout.trim()).toBe('gdn 0.1.0');
});

test('says how to fix it when there is no Bun at all', async () => {
  const gdn = await installedLayout(async () => {});
  const result = await version(gdn);
  expect(result.exitCode).toBe(127);
  expect(result.stderr).toContain("gdn: cannot find Bun (the npm package 'bun')");
});
