import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError } from '@goondan/core/errors';

const WAIT_MS = 60_000;

function holderAlive(lockDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (thrown) {
    // EPERM: the process exists under another user.
    return (thrown as NodeJS.ErrnoException)?.code === 'EPERM';
  }
}

/**
 * Runs `work` while holding `<git common dir>/goondan-activate.lock`, so activations of one repository happen one
 * at a time across processes (the ref compare-and-swap and the working-tree update are one step). A lock whose
 * process is gone is taken over. A mutex only, not a record: nothing is read from it but the holder's pid.
 */
export async function withActivationLock<T>(commonDir: string, work: () => Promise<T>): Promise<T> {
  const lockDir = join(commonDir, 'goondan-activate.lock');
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (thrown) {
      if ((thrown as NodeJS.ErrnoException)?.code !== 'EEXIST') throw thrown;
      // Just created by another process that has not written its pid yet: give it a moment before judging.
      if (!holderAlive(lockDir) && Date.now() - lockAge(lockDir) > 2_000) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new GoondanError('E_CHANGESET_FAILED', `Another activation has held ${lockDir} for over a minute.`, {
          suggestion: `If no gdn process is committing a changeset, remove ${lockDir}`,
        });
      }
      await Bun.sleep(25);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function lockAge(lockDir: string): number {
  try {
    return statSync(lockDir).mtimeMs;
  } catch {
    return 0;
  }
}
