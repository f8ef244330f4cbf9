import type { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { ConversationStore } from './conversation-store.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { textMessage } from './test-support.ts';
import { newSpanId, newTraceId } from './trace-ids.ts';
import { TraceStore } from './trace-store.ts';

// State that can be read but not written: a read-only file system (a tmpfs remounted read-only, which binds root
// too, where chmod would not). Writers are refused with E_STORE_OPEN naming the file; readers that say so
// (forReading) read it.

const root = mkdtempSync(join(tmpdir(), 'goondan-store-ro-'));
const mountPoint = join(root, 'mnt');
const scratch = join(root, 'scratch');
let mounted = false;
let mountProblem = '';

function sh(...args: string[]): { ok: boolean; message: string } {
  const result = Bun.spawnSync(args, { stderr: 'pipe' });
  return { ok: result.exitCode === 0, message: result.stderr.toString().trim() || `exit ${result.exitCode}` };
}

beforeAll(() => {
  mkdirSync(mountPoint);
  mkdirSync(scratch);
  const mount = sh('mount', '-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint);
  mounted = mount.ok;
  mountProblem = mount.message;
});

afterAll(() => {
  if (mounted && !sh('umount', mountPoint).ok) sh('umount', '-l', mountPoint);
  rmSync(root, { recursive: true, force: true });
});

/** Puts the files `files` of `scratch` (a database and what lies beside it) on the mount, then makes it read-only. */
function readOnlyCopy(files: string[]): string {
  expect(sh('mount', '-o', 'remount,rw', mountPoint).ok).toBe(true);
  for (const name of readdirSync(mountPoint)) rmSync(join(mountPoint, name), { recursive: true, force: true });
  for (const name of files) copyFileSync(join(scratch, name), join(mountPoint, name));
  expect(sh('mount', '-o', 'remount,ro', mountPoint).ok).toBe(true);
  return join(mountPoint, 'state.db');
}

/** A database in scratch, closed cleanly (no -wal left), with two messages and a span. */
function writeScratch(): void {
  for (const name of readdirSync(scratch)) rmSync(join(scratch, name), { force: true });
  const db = openInstanceDatabase(join(scratch, 'state.db'));
  const conversation = new ConversationStore(db, { compactAfterEvents: 0 });
  conversation.append(textMessage('m-1', 'first'));
  conversation.append(textMessage('m-2', 'second'));
  new TraceStore(db).recordSpan({
    traceId: newTraceId(),
    spanId: newSpanId(),
    parentSpanId: null,
    kind: 'turn',
    name: 'turn helper',
    startedAt: 1,
    endedAt: 2,
    status: 'ok',
    attributes: {},
  });
  db.close();
}

function failure(open: () => Database): GoondanError {
  try {
    open().close();
  } catch (error) {
    if (error instanceof GoondanError) return error;
    throw error;
  }
  throw new Error('expected the open to fail');
}

describe('an instance database that cannot be written', () => {
  test('a writer is refused with E_STORE_OPEN naming the file; a reader (forReading) reads it', () => {
    if (!mounted) {
      console.warn(`skipped: cannot mount a tmpfs to make read-only (${mountProblem}); run as root to try it`);
      return;
    }
    writeScratch();
    const path = readOnlyCopy(['state.db']);
    const refused = failure(() => openInstanceDatabase(path));
    expect(refused.code).toBe('E_STORE_OPEN');
    expect(refused.message).toContain(path);

    const db = openInstanceDatabase(path, { forReading: true });
    try {
      expect(new ConversationStore(db).load().map((message) => message.id)).toEqual(['m-1', 'm-2']);
      expect(new TraceStore(db).recentTraces(10).map((trace) => trace.spans[0]?.name)).toEqual(['turn helper']);
    } finally {
      db.close();
    }
  });

  test('a -wal left by a writer that died is read with it when its -shm is there, refused with the reason when not', () => {
    if (!mounted) {
      console.warn(`skipped: cannot mount a tmpfs to make read-only (${mountProblem}); run as root to try it`);
      return;
    }
    for (const name of readdirSync(scratch)) rmSync(join(scratch, name), { force: true });
    const writer = openInstanceDatabase(join(scratch, 'state.db'));
    try {
      const conversation = new ConversationStore(writer, { compactAfterEvents: 0 });
      conversation.append(textMessage('m-1', 'first'));
      writer.run('PRAGMA wal_checkpoint(TRUNCATE)');
      conversation.append(textMessage('m-2', 'only in the wal'));
      // Copied while the writer is open: the file, its -wal (m-2) and its -shm, as a kill -9 leaves them.
      const withShm = readOnlyCopy(['state.db', 'state.db-wal', 'state.db-shm']);
      const db = openInstanceDatabase(withShm, { forReading: true });
      try {
        expect(new ConversationStore(db).load().map((message) => message.id)).toEqual(['m-1', 'm-2']);
      } finally {
        db.close();
      }

      const withoutShm = readOnlyCopy(['state.db', 'state.db-wal']);
      const refused = failure(() => openInstanceDatabase(withoutShm, { forReading: true }));
      expect(refused.code).toBe('E_STORE_OPEN');
      expect(refused.message).toContain(withoutShm);
      expect(refused.suggestion).toContain(`${withoutShm}-wal holds commits not yet in the file`);
    } finally {
      writer.close();
    }
  });
});
