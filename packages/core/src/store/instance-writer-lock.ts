import { Database } from 'bun:sqlite';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { isProcessAlive } from '../orchestrator/is-process-alive.ts';
import { toStoreError } from './to-store-error.ts';

/** Who holds an instance's writer lock, as written beside it for the message of the next one who asks. */
export interface WriterLockHolder {
  pid: number;
  /** What the process is (`gdn run`, `swarm agent process …`). */
  holder: string;
  since: string;
}

/** The writer lock of one agent instance, held until `release()` (or until the process ends, however). */
export interface InstanceWriterLock {
  readonly holder: WriterLockHolder;
  /** Frees the lock; idempotent. */
  release(): void;
}

const lockFileName = 'writer.lock';
const holderFileName = 'writer.json';

/** `gdn run` for the CLI, else the script's name. Never the arguments: they may hold the user's input. */
function describeThisProcess(): string {
  const script = basename(process.argv[1] ?? process.argv[0] ?? 'bun');
  const command = process.argv[2];
  if (/^(main\.ts|gdn(\.js)?)$/.test(script) && command && /^[a-z-]+$/.test(command)) return `gdn ${command}`;
  if (script === 'agent-process-main.ts') return `an agent process of the swarm run by pid ${process.ppid}`;
  return script;
}

function readHolder(dir: string): WriterLockHolder | null {
  try {
    return JSON.parse(readFileSync(join(dir, holderFileName), 'utf8')) as WriterLockHolder;
  } catch {
    return null;
  }
}

function writeHolder(dir: string, holder: WriterLockHolder): void {
  const file = join(dir, holderFileName);
  try {
    writeFileSync(`${file}.${process.pid}`, `${JSON.stringify(holder)}\n`);
    renameSync(`${file}.${process.pid}`, file);
  } catch {
    // Only the message of a refused writer reads it; the lock itself is what counts.
  }
}

/** How long a refused writer waits for the holder file of the process that just took the lock. */
const HOLDER_WAIT_MS = 500;

function busy(instance: string, dir: string, cause: unknown): GoondanError {
  // The holder file is written just after the lock is taken: a writer refused in between (two runs started at the
  // same moment) reads the previous holder's, usually a process that has ended. It waits a little for the new one
  // rather than name a process that is not in the way.
  let holder = readHolder(dir);
  for (let waited = 0; (!holder || !isProcessAlive(holder.pid)) && waited < HOLDER_WAIT_MS; waited += 25) {
    Bun.sleepSync(25);
    holder = readHolder(dir);
  }
  const who =
    holder && isProcessAlive(holder.pid)
      ? `pid ${holder.pid} (${holder.holder}), since ${holder.since}`
      : 'another process (one that has just started, or cannot write writer.json beside the lock)';
  return new GoondanError('E_INSTANCE_BUSY', `Agent instance ${instance} is in use by ${who}.`, { cause });
}

/**
 * Takes the writer lock of an agent instance (one process at a time runs its turns and writes its conversation).
 * The lock is an exclusive lock the operating system holds on `<dir>/writer.lock` for this process's connection
 * (a SQLite database in exclusive locking mode): it ends with the process, however it ends, so a lock left by a
 * process killed with SIGKILL is simply free for the next one. Two instances in one process exclude each other too.
 *
 * @throws GoondanError E_INSTANCE_BUSY naming the holder (pid, what it is, since when) when another one holds it.
 * @example
 * const lock = acquireInstanceWriterLock({ dir, instance: 'assistant/default' });
 * try { ... } finally { lock.release(); }
 */
export function acquireInstanceWriterLock(options: {
  dir: string;
  instance: string;
  holder?: string;
}): InstanceWriterLock {
  const { dir, instance } = options;
  mkdirSync(dir, { recursive: true });
  let db: Database;
  try {
    db = new Database(join(dir, lockFileName), { create: true, readwrite: true });
  } catch (error) {
    throw unusableLock(instance, dir, error);
  }
  const holder: WriterLockHolder = {
    pid: process.pid,
    holder: options.holder ?? describeThisProcess(),
    since: new Date().toISOString(),
  };
  try {
    // No waiting: a busy instance is reported at once. In exclusive locking mode the lock taken by the first
    // write stays with the connection after COMMIT, until it closes.
    db.run('PRAGMA busy_timeout = 0');
    db.run('PRAGMA locking_mode = EXCLUSIVE');
    db.run('BEGIN EXCLUSIVE');
    db.run('CREATE TABLE IF NOT EXISTS writer (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL)');
    db.run('INSERT OR REPLACE INTO writer (id, pid) VALUES (1, ?)', [process.pid]);
    db.run('COMMIT');
  } catch (error) {
    db.close();
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) throw busy(instance, dir, error);
    if (typeof code === 'string' && code.startsWith('SQLITE_LOCKED')) throw busy(instance, dir, error);
    throw unusableLock(instance, dir, error);
  }
  writeHolder(dir, holder);
  let released = false;
  return {
    holder,
    release() {
      if (released) return;
      released = true;
      db.close();
    },
  };
}

/**
 * Whether a live process holds the writer lock of the instance in `dir` now. A probe that keeps nothing: only when
 * the holder file names a live process is the lock itself tried (a reserved lock, rolled back at once), so it does not
 * get in the way of a process taking the lock of an instance nobody holds.
 */
export function isInstanceWriterLockHeld(dir: string): boolean {
  const holder = readHolder(dir);
  if (!holder || !isProcessAlive(holder.pid)) return false;
  let db: Database;
  try {
    db = new Database(join(dir, lockFileName), { readwrite: true });
  } catch {
    return false;
  }
  try {
    db.run('PRAGMA busy_timeout = 0');
    db.run('BEGIN IMMEDIATE');
    db.run('ROLLBACK');
    return false;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
  } finally {
    db.close();
  }
}

/**
 * The lock file cannot be opened or written: a directory or another file in its place, a file the runtime did not
 * make, or a directory it cannot write. It holds nothing of value (the holder's pid): naming it lets a person remove
 * it once no gdn process uses the instance. It is never removed here: two processes doing so at once could each
 * lock a file of their own.
 */
function unusableLock(instance: string, dir: string, error: unknown): GoondanError {
  const file = join(dir, lockFileName);
  const coded = toStoreError(error, file, 'Writer lock file');
  // A full disk is not a lock in the way: saying to remove the file would send a person the wrong way.
  if (coded instanceof GoondanError && coded.code === 'E_STORE_FULL') return coded;
  const reason = error instanceof Error ? error.message : String(error);
  return new GoondanError(
    'E_STORE_OPEN',
    `Cannot take the writer lock of agent instance ${instance}: ${file} (${reason}).`,
    {
      suggestion: `Check that ${dir} is writable. If ${file} is not a file gdn made (a directory, or other content), remove it while no gdn process uses the instance; it holds no data.`,
      cause: error,
    },
  );
}
