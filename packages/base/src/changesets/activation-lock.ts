import { randomUUID } from 'node:crypto';
import { mkdirSync, readlinkSync, rmdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { changesetCheckpoint } from './changeset-test-hook.ts';

const WAIT_MS = 60_000;
const thisHost = encodeURIComponent(hostname());

/** The lock's content: `<pid> <host> <id>`, the id unique to one acquisition. */
function readHolder(lockPath: string): string | undefined {
  try {
    return readlinkSync(lockPath);
  } catch {
    // Gone, or not a symbolic link (another format): nothing to judge.
    return undefined;
  }
}

/** Only a process of this host can be judged; one that is gone (ESRCH) left a stale lock. */
function holderDead(holder: string): boolean {
  const [pidText = '', host, id] = holder.split(' ');
  const pid = Number(pidText);
  if (host !== thisHost || !id || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (thrown) {
    return (thrown as NodeJS.ErrnoException)?.code === 'ESRCH';
  }
}

/**
 * Removes the stale lock `holder`, and only that one: the takeover of one acquisition is claimed exclusively
 * (`mkdir <lock>.takeover-<id>`), and the claimer removes the lock only if it still names that acquisition. A
 * slower process that judged the same lock dead either fails to claim it or finds another holder, and removes
 * nothing, so it can never delete the lock a faster one has just taken.
 */
function takeOver(lockPath: string, holder: string): boolean {
  const claim = `${lockPath}.takeover-${holder.split(' ')[2]}`;
  try {
    mkdirSync(claim);
  } catch (thrown) {
    // Another process is taking it over (or died doing so: the lock then waits to be removed by hand).
    if ((thrown as NodeJS.ErrnoException)?.code === 'EEXIST') return false;
    throw thrown;
  }
  try {
    // While the claim is ours, nothing else can change a lock naming that acquisition: its holder is dead, every
    // other taker of it fails to claim it, and no one can create a lock over an existing one.
    if (readHolder(lockPath) !== holder) return false;
    unlinkSync(lockPath);
    return true;
  } finally {
    try {
      rmdirSync(claim);
    } catch {
      // Removed by hand meanwhile: nothing left to release.
    }
  }
}

/**
 * Runs `work` while holding `<git common dir>/goondan-activate.lock`, so activations of one repository happen one
 * at a time across processes (the ref compare-and-swap and the working-tree update are one step). The lock is a
 * symbolic link created in one step with its content (`<pid> <host> <id>`); a lock whose process is gone is taken
 * over, atomically (takeOver). A mutex only, not a record: nothing is read from it but who holds it.
 */
export async function withActivationLock<T>(
  commonDir: string,
  work: () => Promise<T>,
  options: { waitMs?: number } = {},
): Promise<T> {
  const lockPath = join(commonDir, 'goondan-activate.lock');
  const mine = `${process.pid} ${thisHost} ${randomUUID()}`;
  const deadline = Date.now() + (options.waitMs ?? WAIT_MS);
  for (;;) {
    try {
      symlinkSync(mine, lockPath);
      break;
    } catch (thrown) {
      if ((thrown as NodeJS.ErrnoException)?.code !== 'EEXIST') throw thrown;
    }
    const holder = readHolder(lockPath);
    if (holder !== undefined && holderDead(holder)) {
      await changesetCheckpoint('lock-judged-stale');
      if (takeOver(lockPath, holder)) continue;
    }
    if (Date.now() > deadline) {
      const waited = Math.round((options.waitMs ?? WAIT_MS) / 1000);
      throw new GoondanError(
        'E_CHANGESET_FAILED',
        `Another activation has held ${lockPath} for over ${waited} s (held by: ${holder ?? 'not a goondan lock'}). Nothing was activated.`,
        {
          suggestion: `If no gdn process is committing a changeset in this repository (a lock of another host is never taken over), remove ${lockPath} and any ${lockPath}.takeover-* next to it`,
        },
      );
    }
    await changesetCheckpoint('lock-busy');
    await Bun.sleep(25);
  }
  try {
    return await work();
  } finally {
    if (readHolder(lockPath) === mine) unlinkSync(lockPath);
  }
}
