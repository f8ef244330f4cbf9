import { afterAll, describe, expect, test } from 'bun:test';
import { chown, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, gdn, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

const v1Model = `apiVersion: agents.example.io/v1alpha1
kind: Model
metadata:
  name: main
spec: { provider: openai, model: gpt-4o-mini }
`;

describe('gdn migrate on bundles from someone else', () => {
  test('a goondan.yaml linked to a file outside the bundle is not written through; the changes are listed', async () => {
    const root = await makeTempDir();
    const bundle = join(root, 'bundle');
    const elsewhere = join(root, 'elsewhere');
    await mkdir(bundle);
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'config.yaml'), v1Model);
    await symlink(join(elsewhere, 'config.yaml'), join(bundle, 'goondan.yaml'));

    const result = await gdn(['migrate', '--bundle', bundle]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('apiVersion "agents.example.io/v1alpha1" → goondan.ai/v1');
    expect(result.stdout).toContain(
      `E_MIGRATE_UNCONVERTED  goondan.yaml is a symbolic link to ${join(elsewhere, 'config.yaml')}`,
    );
    expect(result.stderr).toContain('(not written)');
    expect(await readFile(join(elsewhere, 'config.yaml'), 'utf8')).toBe(v1Model);
    expect(await readdir(elsewhere)).toEqual(['config.yaml']);
    expect((await lstat(join(bundle, 'goondan.yaml'))).isSymbolicLink()).toBe(true);

    const json = await gdn(['migrate', '--bundle', bundle, '--json']);
    expect(JSON.parse(json.stdout).written).toBe(false);
    expect(await readFile(join(elsewhere, 'config.yaml'), 'utf8')).toBe(v1Model);
  });

  test('a goondan.yaml linked to a file inside the bundle: its target is replaced and the link stays', async () => {
    const bundle = await makeTempDir();
    await mkdir(join(bundle, 'config'));
    await writeFile(join(bundle, 'config', 'bundle.yaml'), v1Model);
    await symlink('config/bundle.yaml', join(bundle, 'goondan.yaml'));
    const result = await gdn(['migrate', '--bundle', bundle]);
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(bundle, 'config', 'bundle.yaml'), 'utf8')).toContain('apiVersion: goondan.ai/v1\n');
    expect((await lstat(join(bundle, 'goondan.yaml'))).isSymbolicLink()).toBe(true);
  });

  test('.git and node_modules are not touched, a dead run’s scratch file is removed, and a second run changes nothing', async () => {
    const bundle = await makeTempDir();
    await writeFile(join(bundle, 'goondan.yaml'), v1Model);
    await mkdir(join(bundle, '.git'));
    await writeFile(join(bundle, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await mkdir(join(bundle, 'node_modules', 'x'), { recursive: true });
    await writeFile(join(bundle, 'node_modules', 'x', 'goondan.yaml'), v1Model);
    const dead = Bun.spawn([process.execPath, '-e', '0']);
    await dead.exited;
    await writeFile(join(bundle, `.goondan.yaml.gdn-migrate-${dead.pid}.tmp`), 'apiVersion: goon');

    const first = await gdn(['migrate', '--bundle', bundle]);
    expect(first.exitCode).toBe(0);
    const migrated = await readFile(join(bundle, 'goondan.yaml'), 'utf8');
    expect(migrated).toBe(v1Model.replace('agents.example.io/v1alpha1', 'goondan.ai/v1'));
    expect(await readFile(join(bundle, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(await readFile(join(bundle, 'node_modules', 'x', 'goondan.yaml'), 'utf8')).toBe(v1Model);
    expect((await readdir(bundle)).sort()).toEqual(['.git', 'goondan.yaml', 'node_modules']);

    const second = await gdn(['migrate', '--bundle', bundle]);
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain('Nothing to rewrite');
    expect(await readFile(join(bundle, 'goondan.yaml'), 'utf8')).toBe(migrated);
  });

  test('a bundle gdn init wrote (already v2) is left byte for byte', async () => {
    const bundle = await makeTempDir();
    expect((await gdn(['init', bundle])).exitCode).toBe(0);
    const before = await readFile(join(bundle, 'goondan.yaml'));
    const result = await gdn(['migrate', '--bundle', bundle]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('Nothing to rewrite');
    expect(Buffer.compare(await readFile(join(bundle, 'goondan.yaml')), before)).toBe(0);
  });

  // Only root can hand a file to another user, so only a run as root shows it (sudo gdn migrate in someone's bundle).
  test.skipIf(process.getuid?.() !== 0)(
    "run as root on a user's bundle: the rewritten file keeps its owner",
    async () => {
      const bundle = await makeTempDir();
      const file = join(bundle, 'goondan.yaml');
      await writeFile(file, v1Model, { mode: 0o640 });
      await chown(file, 65534, 65534);
      const result = await gdn(['migrate', '--bundle', bundle]);
      expect(result.exitCode).toBe(0);
      const after = await stat(file);
      expect([after.uid, after.gid, after.mode & 0o777]).toEqual([65534, 65534, 0o640]);
      expect(await readFile(file, 'utf8')).toContain('apiVersion: goondan.ai/v1\n');
    },
  );
});
