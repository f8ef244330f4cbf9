import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, renameSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanup, errorCodeOf, makeTempDir } from '../test/helpers.ts';
import { setConfinementHook, setProcFdDisabledForTests } from './confinement-test-hook.ts';
import { closeWorkdir, openWorkdir, release, type Workdir } from './directory-handle.ts';
import { type LocateOptions, locateInsideWorkdir } from './locate-inside-workdir.ts';

let workdir: string;
let outsideDir: string;

beforeAll(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  await mkdir(join(workdir, 'sub/deep'), { recursive: true });
  await writeFile(join(workdir, 'sub/file.txt'), 'x');
  await symlink(join(workdir, 'sub'), join(workdir, 'absolute-in'));
  await symlink('sub/deep/..', join(workdir, 'relative-up'));
  await symlink('../file.txt', join(workdir, 'sub/deep/up-link'));
  await symlink('..', join(workdir, 'parent-of-root'));
  await symlink('sub/../..', join(workdir, 'climbs-out'));
  await symlink(outsideDir, join(workdir, 'outer-link'));
  await symlink('outer-link/planted.txt', join(workdir, 'sneaky'));
  await symlink(join(workdir, 'loop-b'), join(workdir, 'loop-a'));
  await symlink(join(workdir, 'loop-a'), join(workdir, 'loop-b'));
  await symlink('sub/new.txt', join(workdir, 'dangling-in'));
});
afterAll(() => cleanup(workdir, outsideDir));
afterEach(() => {
  setProcFdDisabledForTests(false);
  setConfinementHook(undefined);
});

/** Where a path lands: the real names of its parent plus its own name, and whether something is there. */
function where(path: string, options: LocateOptions = {}) {
  const opened: Workdir = openWorkdir(workdir);
  try {
    const location = locateInsideWorkdir(opened, { path, ...options });
    release(location.parent);
    const names = [...location.parent.components, ...(location.name === null ? [] : [location.name])];
    return { at: names.join('/') || '.', exists: location.stats !== undefined, relativePath: location.relativePath };
  } finally {
    closeWorkdir(opened);
  }
}

/** The error code locating `path` throws ('resolved' when it does not). */
const codeOf = (path: string) => errorCodeOf(Promise.resolve().then(() => where(path)));

const openDescriptors = () => readdirSync('/proc/self/fd').length;

describe('locateInsideWorkdir', () => {
  test('walks plain paths, normalized as the user wrote them', () => {
    expect(where('./sub//file.txt')).toEqual({ at: 'sub/file.txt', exists: true, relativePath: 'sub/file.txt' });
    expect(where('sub/new/deeper.txt')).toMatchObject({ exists: false, relativePath: 'sub/new/deeper.txt' });
    expect(where('')).toEqual({ at: '.', exists: true, relativePath: '.' });
    expect(where('sub/..')).toEqual({ at: '.', exists: true, relativePath: '.' });
  });

  test('follows links that stay inside: absolute, relative, with ".." in the target, dangling', () => {
    expect(where('absolute-in/file.txt').at).toBe('sub/file.txt');
    expect(where('relative-up/file.txt').at).toBe('sub/file.txt');
    expect(where('sub/deep/up-link')).toMatchObject({ at: 'sub/file.txt', exists: true });
    expect(where('dangling-in')).toMatchObject({ at: 'sub/new.txt', exists: false });
    expect(where('absolute-in', { followLast: false }).at).toBe('absolute-in');
  });

  test('refuses links that lead out, at once, through "..", through a second link, and loops', async () => {
    for (const path of ['outer-link', 'outer-link/x/y', 'parent-of-root', 'climbs-out/x', 'sneaky', 'loop-a/x']) {
      expect(`${path} → ${await codeOf(path)}`).toBe(`${path} → E_PATH_OUTSIDE_WORKDIR`);
    }
    for (const path of ['/etc/passwd', '../x', 'sub/../../x', 'a\0b']) {
      expect(`${path} → ${await codeOf(path)}`).toBe(`${path} → E_PATH_OUTSIDE_WORKDIR`);
    }
  });

  test('creates missing parents only when asked, one name at a time', () => {
    expect(where('made/on/the/way.txt', { createParents: true })).toMatchObject({
      at: 'made/on/the/way.txt',
      exists: false,
    });
    expect(where('made/on/the')).toMatchObject({ at: 'made/on/the', exists: true });
  });

  test('leaves no descriptor open, also when it refuses', async () => {
    const before = openDescriptors();
    for (let round = 0; round < 20; round++) {
      where('sub/deep/up-link');
      where('relative-up/deep');
      await codeOf('climbs-out/x');
      await codeOf('loop-a');
    }
    expect(openDescriptors()).toBe(before);
  });

  test('without /proc/self/fd it resolves the same way (the path used on macOS and BSD)', async () => {
    setProcFdDisabledForTests(true);
    expect(where('sub/deep/up-link')).toMatchObject({ at: 'sub/file.txt', exists: true });
    expect(where('absolute-in/file.txt').at).toBe('sub/file.txt');
    expect(await codeOf('outer-link/x')).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await codeOf('climbs-out/x')).toBe('E_PATH_OUTSIDE_WORKDIR');
  });

  test('a link swapped for a directory between looking at it and reading it is looked at again', async () => {
    // lstat saw a link; by the time it is read, a directory has taken its place (readlink would fail EINVAL).
    await mkdir(join(workdir, 'swap-real'));
    await writeFile(join(workdir, 'swap-real/f.txt'), 'inside');
    await symlink(outsideDir, join(workdir, 'swapping'));
    setConfinementHook((stage) => {
      if (stage !== 'walk-link') return;
      setConfinementHook(undefined);
      renameSync(join(workdir, 'swapping'), join(workdir, 'swap-link'));
      renameSync(join(workdir, 'swap-real'), join(workdir, 'swapping'));
    });
    expect(where('swapping/f.txt')).toEqual({ at: 'swapping/f.txt', exists: true, relativePath: 'swapping/f.txt' });
  });
});
