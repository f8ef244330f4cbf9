import { afterAll, describe, expect, test } from 'bun:test';
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageName } from '../src/commands/init.ts';
import { cleanupTempDirs, gdn, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

/** npm's rules for a new package's name (validate-npm-package-name), the ones a folder name can break. */
function npmRefuses(name: string): string | null {
  if (name.length === 0 || name.length > 214) return 'length';
  if (/^[._]/.test(name)) return 'leading . or _';
  if (name !== name.toLowerCase()) return 'capitals';
  if (encodeURIComponent(name) !== name) return 'not URL-safe';
  if (['node_modules', 'favicon.ico', 'http', 'fs', 'path'].includes(name)) return 'refused name';
  return null;
}

describe('gdn init with odd and hostile folder names', () => {
  // Folder names a user types; each gets a bundle in exactly that folder, with a package.json npm accepts.
  for (const name of ['my bot', '봇', '-rf', 'MyBot', '.hidden', '_under', 'node_modules', 'http', 'x'.repeat(250)]) {
    test(`'${name.length > 20 ? `${name.slice(0, 5)}… (${name.length})` : name}'`, async () => {
      const parent = await makeTempDir();
      const result = await gdn(['init', '--', name], { cwd: parent });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(await readdir(parent)).toEqual([name]);
      const pkg = JSON.parse(await readFile(join(parent, name, 'package.json'), 'utf8')) as { name: string };
      expect(npmRefuses(pkg.name)).toBeNull();
    });
  }

  test('the package name keeps what it can of the folder name', () => {
    expect(packageName('/a/My Bot')).toBe('my-bot');
    expect(packageName('/a/node_modules')).toBe('node_modules-bundle');
    expect(packageName('/a/HTTP')).toBe('http-bundle');
    expect(packageName('/a/봇')).toBe('goondan-bundle');
    expect(packageName(`/a/${'y'.repeat(250)}`)).toBe('y'.repeat(200));
    expect(packageName(`/a/${'z'.repeat(199)} q`)).toBe('z'.repeat(199));
  });

  test('a folder inside DIR that is a symbolic link to elsewhere: refused with E_INIT_REFUSED, nothing written', async () => {
    const root = await makeTempDir();
    const outside = join(root, 'outside');
    const bundle = join(root, 'bundle');
    await mkdir(outside);
    await mkdir(bundle);
    await symlink(outside, join(bundle, 'tools'));
    const result = await gdn(['init', bundle]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('E_INIT_REFUSED');
    expect(result.stderr).toContain(`${join(bundle, 'tools')} is a symbolic link`);
    expect(result.stderr).toContain('help: ');
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(bundle)).toEqual(['tools']);
  });

  test('a folder that already holds goondan.yaml is refused with a code, and nothing is written', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'goondan.yaml'), '# mine\n');
    const result = await gdn(['init', dir]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('E_INIT_REFUSED');
    expect(result.stderr).toContain('already holds a bundle');
    expect(await readdir(dir)).toEqual(['goondan.yaml']);
  });

  test('DIR a symbolic link to nowhere: E_INIT_REFUSED naming where it points, nothing created', async () => {
    const parent = await makeTempDir();
    await symlink('missing-folder', join(parent, 'bot'));
    const result = await gdn(['init', 'bot'], { cwd: parent });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('E_INIT_REFUSED');
    expect(result.stderr).toContain('is a symbolic link to missing-folder, which does not exist');
    expect(await readdir(parent)).toEqual(['bot']);
  });

  test('a file named DIR: E_PATH_ACCESS, the file kept', async () => {
    const parent = await makeTempDir();
    await writeFile(join(parent, 'bot'), 'my notes\n');
    const result = await gdn(['init', 'bot'], { cwd: parent });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('E_PATH_ACCESS');
    expect(await readFile(join(parent, 'bot'), 'utf8')).toBe('my notes\n');
  });
});

describe('an init killed midway, run again', () => {
  // Each file is written to a scratch file beside it and linked in place whole: a killed init leaves at most that
  // scratch file (never half a package.json the next run would keep as the user's), and the next run removes it.
  test('the scratch file of a dead init is removed and the file written whole', async () => {
    const dir = await makeTempDir();
    const dead = Bun.spawn([process.execPath, '-e', '0']);
    await dead.exited;
    const scratch = join(dir, `.package.json.gdn-init-${dead.pid}.tmp`);
    await writeFile(scratch, '{ "name": "half');
    const result = await gdn(['init', dir]);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).dependencies['@goondan/cli']).toBeDefined();
    expect(await lstat(scratch).catch(() => null)).toBeNull();
    expect((await readdir(dir)).filter((entry) => entry.includes('gdn-init'))).toEqual([]);
  });
});

describe('create-goondan', () => {
  const script = join(import.meta.dir, '..', '..', 'create-goondan', 'bin', 'create-goondan.js');

  test('passes an odd folder name through to gdn init unchanged', async () => {
    const parent = await makeTempDir();
    const proc = Bun.spawn(['node', script, 'my bot'], { cwd: parent, stdout: 'pipe', stderr: 'pipe' });
    const [stdout] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(proc.exitCode).toBe(0);
    expect(stdout).toContain('Created a bundle in my bot');
    expect(await readdir(parent)).toEqual(['my bot']);
  });

  test('without @goondan/cli beside it: a plain message and status 127, not a stack trace', async () => {
    const parent = await makeTempDir();
    await writeFile(join(parent, 'create-goondan.mjs'), await readFile(script, 'utf8'));
    const proc = Bun.spawn(['node', join(parent, 'create-goondan.mjs'), 'bot'], {
      cwd: parent,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stderr] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(proc.exitCode).toBe(127);
    expect(stderr).toContain('@goondan/cli is not installed beside it; nothing was written');
    expect(stderr).not.toContain('    at ');
    expect(await readdir(parent)).toEqual(['create-goondan.mjs']);
  });
});
