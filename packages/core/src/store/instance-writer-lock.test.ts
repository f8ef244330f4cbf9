import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { acquireInstanceWriterLock } from './instance-writer-lock.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

const holdLock = join(import.meta.dir, '__fixtures__', 'hold-writer-lock.ts');

/** Starts a process that holds the lock of `dir`; resolves once it says so. */
async function startHolder(dir: string) {
  const child = Bun.spawn([process.execPath, holdLock, dir], { stdout: 'pipe', stderr: 'pipe' });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = '';
  while (!out.includes('locked\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`holder exited: ${await new Response(child.stderr).text()}`);
    out += value;
  }
  return child;
}

function busyError(dir: string): GoondanError {
  try {
    acquireInstanceWriterLock({ dir, instance: 'assistant/default' }).release();
  } catch (thrown) {
    return thrown as GoondanError;
  }
  throw new Error('the lock was taken although another process holds it');
}

describe('instance writer lock', () => {
  test('a second writer in another process gets E_INSTANCE_BUSY naming the holder', async () => {
    const dir = temp.make();
    const holder = await startHolder(dir);
    try {
      const error = busyError(dir);
      expect(error).toBeInstanceOf(GoondanError);
      expect(error.code).toBe('E_INSTANCE_BUSY');
      expect(error.message).toContain('assistant/default');
      expect(error.message).toContain(`pid ${holder.pid}`);
      expect(error.message).toContain('lock fixture');
    } finally {
      holder.kill('SIGKILL');
      await holder.exited;
    }
  });

  test('a holder file left by an ended process is not named: the refused writer never points at a dead pid', async () => {
    const dir = temp.make();
    const first = acquireInstanceWriterLock({ dir, instance: 'assistant/default', holder: 'first' });
    try {
      // As when two runs start at once: the winner holds the lock, the file still names the last holder, now ended.
      const ended = Bun.spawn([process.execPath, '-e', '0']);
      await ended.exited;
      writeFileSync(
        join(dir, 'writer.json'),
        JSON.stringify({ pid: ended.pid, holder: 'gdn run', since: '2020-01-01T00:00:00.000Z' }),
      );
      const error = busyError(dir);
      expect(error.code).toBe('E_INSTANCE_BUSY');
      expect(error.message).not.toContain(`pid ${ended.pid}`);
      expect(error.message).toContain('another process');
    } finally {
      first.release();
    }
  });

  test('a lock whose holder was killed with SIGKILL is taken over', async () => {
    const dir = temp.make();
    const holder = await startHolder(dir);
    holder.kill('SIGKILL');
    await holder.exited;
    const lock = acquireInstanceWriterLock({ dir, instance: 'assistant/default', holder: 'next' });
    expect(lock.holder.pid).toBe(process.pid);
    lock.release();
  });

  test('two writers in one process exclude each other; release lets the next one in', () => {
    const dir = temp.make();
    const first = acquireInstanceWriterLock({ dir, instance: 'assistant/default', holder: 'first' });
    expect(busyError(dir).code).toBe('E_INSTANCE_BUSY');
    first.release();
    first.release();
    const second = acquireInstanceWriterLock({ dir, instance: 'assistant/default' });
    second.release();
  });

  test('a lock file that is not one (garbage, a directory) is E_STORE_OPEN naming it and saying it may be removed', () => {
    for (const make of [
      (file: string) => writeFileSync(file, 'not a lock at all, just text that fills the first page of the file'),
      (file: string) => mkdirSync(file),
    ]) {
      const dir = temp.make();
      make(join(dir, 'writer.lock'));
      let thrown: unknown;
      try {
        acquireInstanceWriterLock({ dir, instance: 'assistant/default' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(GoondanError);
      expect((thrown as GoondanError).code).toBe('E_STORE_OPEN');
      expect((thrown as GoondanError).message).toContain(join(dir, 'writer.lock'));
      expect((thrown as GoondanError).suggestion).toContain('remove it while no gdn process uses the instance');
    }
  });
});
