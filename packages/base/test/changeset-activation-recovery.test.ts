import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readlinkSync, rmdirSync, symlinkSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { withActivationLock } from '../src/changesets/activation-lock.ts';
import { setChangesetHook } from '../src/changesets/changeset-test-hook.ts';
import { handlers } from '../tools/swarm-bundle/index.ts';
import {
  bundleYaml,
  commit,
  contextFor,
  gitBundle,
  openAndEdit,
  removeBundles,
  runGit,
  tempDir,
} from './changeset-helpers.ts';

afterEach(async () => {
  setChangesetHook(undefined);
  await removeBundles();
});

const killDuringActivation = join(import.meta.dir, '__fixtures__', 'kill-during-activation.ts');

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const proc = Bun.spawn(['true']);
  await proc.exited;
  return proc.pid;
}

/** A changeset 'polite' activated for real, then the index and files put back to the revision before with git alone. */
async function interruptedWithGit() {
  const { dir, workdir } = await gitBundle();
  const before = await runGit(dir, 'rev-parse', 'HEAD');
  await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
  const activated = String((await commit(workdir, 'polite')).revision);
  await runGit(dir, 'read-tree', '-m', '-u', activated, before);
  return { dir, workdir, before, activated };
}

describe('an activation interrupted between moving the branch and updating the files (real git)', () => {
  test('kill -9 at that moment: the next commit finishes that activation first, says so, and loses nothing', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'HEAD');
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    const proc = Bun.spawn([process.execPath, killDuringActivation, dir, 'polite'], { stdout: 'pipe', stderr: 'pipe' });
    await proc.exited;
    expect(proc.signalCode).toBe('SIGKILL');
    // The defect's state: the branch is at the agent's revision, the index and files still at the one before, so git
    // shows the agent's change reversed (and staged), and the killed process's lock is left behind.
    const interrupted = await runGit(dir, 'rev-parse', 'main');
    expect(interrupted).not.toBe(before);
    expect(await runGit(dir, 'log', '-1', '--format=%B', interrupted)).toContain('Goondan-Changeset: polite');
    expect(await runGit(dir, 'diff', '--cached', '--name-only')).toBe('goondan.yaml');
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build.');
    expect(readlinkSync(join(dir, '.git', 'goondan-activate.lock'))).toStartWith(`${proc.pid} `);

    // The next change touches the same file: before the fix it was refused as a person's uncommitted edit.
    await openAndEdit(workdir, 'reply', (text) => text.replace('text: v1', 'text: v2'));
    const result = await commit(workdir, 'reply');
    expect(result).toMatchObject({
      status: 'ok',
      previous: interrupted,
      changed: [{ path: 'goondan.yaml', change: 'modified' }],
      finishedActivation: { revision: interrupted, previous: before, files: ['goondan.yaml'] },
    });
    expect(String(result.activation)).toContain(
      `An earlier activation of ${interrupted.slice(0, 12)} had been interrupted`,
    );
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toBe(bundleYaml('You build politely.', 'v2'));
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
    expect(await runGit(dir, 'log', '--format=%(trailers:key=Goondan-Changeset,valueonly)', 'main')).toStartWith(
      'reply\n\npolite',
    );
    expect(existsSync(join(dir, '.git', 'goondan-activate.lock'))).toBe(false);
    // The killed commit's changeset is still open; committing it again closes it, changing nothing.
    expect(await commit(workdir, 'polite')).toMatchObject({ status: 'ok', changed: [] });
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
  });

  test('the same state made with git alone is finished by the status call (gdn changes list), once', async () => {
    const { dir, workdir, before, activated } = await interruptedWithGit();
    expect(await runGit(dir, 'diff', '--cached', '--name-only')).toBe('goondan.yaml');
    const status = (await handlers.status(contextFor(workdir))) as Record<string, unknown>;
    expect(status.finishedActivation).toMatchObject({ revision: activated, previous: before, files: ['goondan.yaml'] });
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build politely.');
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
    expect(await handlers.status(contextFor(workdir))).not.toHaveProperty('finishedActivation');
  });

  test('without a reflog (core.logAllRefUpdates=false) the trailer and the first parent tell it, and it is finished', async () => {
    const { dir, workdir, before, activated } = await interruptedWithGit();
    await runGit(dir, 'config', 'core.logAllRefUpdates', 'false');
    await rm(join(dir, '.git', 'logs'), { recursive: true });
    const status = (await handlers.status(contextFor(workdir))) as Record<string, unknown>;
    expect(status.finishedActivation).toMatchObject({ revision: activated, previous: before, files: ['goondan.yaml'] });
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
  });

  test("a person's own edit over an interrupted activation is never overwritten: the commit is refused as before", async () => {
    const { dir, workdir, activated } = await interruptedWithGit();
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build (a person is editing).'));
    expect(await handlers.status(contextFor(workdir))).not.toHaveProperty('finishedActivation');
    await openAndEdit(workdir, 'again', (text) => text.replace('You build politely.', 'You build again.'));
    const result = await commit(workdir, 'again');
    expect(result).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
    expect(String(result.message)).toContain('uncommitted edits in files the changeset changes: goondan.yaml');
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('a person is editing');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(activated);
  });

  test("a person's own move of the branch (git reset --soft) is not taken for an interrupted activation", async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'HEAD');
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    await commit(workdir, 'polite');
    await runGit(dir, 'reset', '-q', '--soft', before);
    expect(await handlers.status(contextFor(workdir))).not.toHaveProperty('finishedActivation');
    expect(await runGit(dir, 'diff', '--cached', '--name-only')).toBe('goondan.yaml');
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build politely.');
  });
});

describe('the activation lock', () => {
  const host = encodeURIComponent(hostname());

  test('two takeovers of one dead lock: the slower never removes the lock the faster one took', async () => {
    const commonDir = await tempDir('gdn-lock-');
    const lockPath = join(commonDir, 'goondan-activate.lock');
    symlinkSync(`${await deadPid()} ${host} stale`, lockPath);
    // A judges the lock dead and stops right there; B judges it dead too, takes it over and holds it; only then does
    // A go on with its takeover. B keeps the lock until A is seen waiting for it (or, the defect, holding it too).
    let paused = false;
    let bHolds!: () => void;
    const bHolding = new Promise<void>((resolve) => {
      bHolds = resolve;
    });
    // A is seen waiting for the lock, or (the defect) holding it too.
    let aWaitsOrHolds!: () => void;
    const aWaitingOrHolding = new Promise<void>((resolve) => {
      aWaitsOrHolds = resolve;
    });
    setChangesetHook(async (stage) => {
      if (stage === 'lock-judged-stale' && !paused) {
        paused = true;
        await bHolding;
      } else if (stage === 'lock-busy') aWaitsOrHolds();
    });
    let holders = 0;
    const events: string[] = [];
    const hold = (name: string, whileHeld: () => Promise<void>) => async () => {
      holders += 1;
      events.push(`${name} in (${holders} holding)`);
      await whileHeld();
      holders -= 1;
      events.push(`${name} out`);
    };
    const a = withActivationLock(
      commonDir,
      hold('A', async () => aWaitsOrHolds()),
    );
    const b = withActivationLock(
      commonDir,
      hold('B', async () => {
        bHolds();
        await aWaitingOrHolding;
      }),
    );
    await Promise.all([a, b]);
    expect(events).toEqual(['B in (1 holding)', 'B out', 'A in (1 holding)', 'A out']);
    expect(readdirSync(commonDir)).toEqual([]);
  });

  test('a lock of a process that is gone is taken over at once; one of another host never is', async () => {
    const commonDir = await tempDir('gdn-lock-');
    const lockPath = join(commonDir, 'goondan-activate.lock');
    symlinkSync(`${await deadPid()} ${host} gone`, lockPath);
    expect(await withActivationLock(commonDir, async () => 'ran', { waitMs: 0 })).toBe('ran');
    expect(existsSync(lockPath)).toBe(false);
    symlinkSync(`${await deadPid()} elsewhere remote`, lockPath);
    const refused = await withActivationLock(commonDir, async () => 'ran', { waitMs: 100 }).catch((thrown) => thrown);
    expect(refused).toBeInstanceOf(GoondanError);
    expect(refused).toMatchObject({ code: 'E_CHANGESET_FAILED' });
    expect((refused as GoondanError).suggestion).toContain(`remove ${lockPath}`);
    expect(readlinkSync(lockPath)).toEndWith(' elsewhere remote');
  });

  test('a takeover claimed by a process that died in it blocks, then names the lock and the claim to remove', async () => {
    const commonDir = await tempDir('gdn-lock-');
    const lockPath = join(commonDir, 'goondan-activate.lock');
    symlinkSync(`${await deadPid()} ${host} half-taken`, lockPath);
    mkdirSync(`${lockPath}.takeover-half-taken`);
    let judged = 0;
    setChangesetHook((stage) => {
      if (stage === 'lock-judged-stale') judged += 1;
    });
    const refused = await withActivationLock(commonDir, async () => 'ran', { waitMs: 200 }).catch((thrown) => thrown);
    expect(refused).toMatchObject({ code: 'E_CHANGESET_FAILED' });
    expect((refused as GoondanError).suggestion).toContain(`remove ${lockPath} and any ${lockPath}.takeover-*`);
    // It waited between tries (every 25 ms), not in a busy loop.
    expect(judged).toBeGreaterThan(1);
    expect(judged).toBeLessThan(20);
    rmdirSync(`${lockPath}.takeover-half-taken`);
    expect(await withActivationLock(commonDir, async () => 'ran', { waitMs: 0 })).toBe('ran');
  });
});
