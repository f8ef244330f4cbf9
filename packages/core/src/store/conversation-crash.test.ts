import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ConversationStore } from './conversation-store.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

const appendForever = join(import.meta.dir, '__fixtures__', 'append-forever.ts');
const foldOnce = join(import.meta.dir, '__fixtures__', 'fold-once.ts');

type Writer = ReturnType<typeof startWriter>;

/** Starts the fixture; `printed` fills with every id it reported as committed. */
function startWriter(dbPath: string, compactAfterEvents: number) {
  const child = Bun.spawn([process.execPath, appendForever, dbPath, String(compactAfterEvents)], {
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const printed: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const reading = (async () => {
    let pending = '';
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      printed.push(...lines);
      for (const waiter of waiters.filter((w) => printed.length >= w.count)) waiter.resolve();
    }
  })();
  const printedAtLeast = (count: number) =>
    new Promise<void>((resolve, reject) => {
      if (printed.length >= count) return resolve();
      waiters.push({ count, resolve });
      child.exited.then(async () => {
        await reading;
        if (printed.length < count)
          reject(new Error(`writer exited early: ${await new Response(child.stderr).text()}`));
      });
    });
  /** SIGKILL, then drain what was already in the pipe: those appends had returned before the kill. */
  const kill = async () => {
    child.kill('SIGKILL');
    await child.exited;
    await reading;
    return child.signalCode;
  };
  return { child, printed, printedAtLeast, kill };
}

async function killAfter(writer: Writer, count: number): Promise<void> {
  try {
    await writer.printedAtLeast(count);
  } finally {
    expect(await writer.kill()).toBe('SIGKILL');
  }
}

function loadIds(dbPath: string): string[] {
  const db = openInstanceDatabase(dbPath);
  try {
    return new ConversationStore(db, { compactAfterEvents: 0 }).load().map((message) => message.id);
  } finally {
    db.close();
  }
}

describe('crash safety (real process, SIGKILL)', () => {
  test('nothing already appended is lost when the writer is killed mid-loop, and a restart resumes', async () => {
    const dbPath = join(temp.make(), 'instance.db');
    const first = startWriter(dbPath, 37);
    await killAfter(first, 300);
    const afterFirst = loadIds(dbPath);
    // Everything printed is there, in order; at most the one append in flight at the kill may be extra.
    expect(afterFirst.slice(0, first.printed.length)).toEqual(first.printed);
    expect(afterFirst.length - first.printed.length).toBeLessThanOrEqual(1);
    expect(afterFirst).toEqual(afterFirst.map((_, index) => `m-${index}`));

    const second = startWriter(dbPath, 37);
    await killAfter(second, 150);
    const afterSecond = loadIds(dbPath);
    expect(second.printed[0]).toBe(`m-${afterFirst.length}`);
    expect(afterSecond.slice(0, afterFirst.length)).toEqual(afterFirst);
    expect(afterSecond.slice(afterFirst.length, afterFirst.length + second.printed.length)).toEqual(second.printed);
    expect(afterSecond).toEqual(afterSecond.map((_, index) => `m-${index}`));
  });

  test('another connection reads consistent conversations while a writer process appends and compacts', async () => {
    const dbPath = join(temp.make(), 'instance.db');
    const writer = startWriter(dbPath, 25);
    try {
      await writer.printedAtLeast(1);
      const db = openInstanceDatabase(dbPath);
      const reader = new ConversationStore(db, { compactAfterEvents: 0 });
      let previous = 0;
      const seen: number[] = [];
      while (writer.printed.length < 400) {
        const loaded = reader.load().map((message) => message.id);
        // Always a gap-free prefix m-0..m-n, never shrinking, even while the writer compacts.
        expect(loaded).toEqual(loaded.map((_, index) => `m-${index}`));
        expect(loaded.length).toBeGreaterThanOrEqual(previous);
        previous = loaded.length;
        seen.push(loaded.length);
        await Bun.sleep(1);
      }
      const final = reader.load().map((message) => message.id);
      expect(final.length).toBeGreaterThanOrEqual(400);
      expect(final).toEqual(final.map((_, index) => `m-${index}`));
      db.close();
      // At least one read happened while the writer was running (how many depends on machine load).
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      await writer.kill();
    }
  });

  test('a writer killed as it folds a large conversation into a new base leaves it whole, and the next fold works', async () => {
    const dbPath = join(temp.make(), 'instance.db');
    // 2000 messages of 8 KB: folding re-encodes 16 MB in one transaction, so the kill lands inside it.
    const child = Bun.spawn([process.execPath, foldOnce, dbPath, '2000', '8000'], { stdout: 'pipe', stderr: 'pipe' });
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let printed = '';
    while (!printed.includes('folding\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`fold-once ended early: ${await new Response(child.stderr).text()}`);
      printed += value;
    }
    child.kill('SIGKILL');
    await child.exited;
    expect(child.signalCode).toBe('SIGKILL');

    const expected = Array.from({ length: 2000 }, (_, index) => `m-${index}`);
    const db = openInstanceDatabase(dbPath);
    try {
      expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
      const store = new ConversationStore(db, { compactAfterEvents: 0 });
      const messages = store.load();
      expect(messages.map((message) => message.id)).toEqual(expected);
      expect(messages.every((message, index) => message.metadata.index === index)).toBe(true);
      // Whether the kill came before or after its commit, a fold now leaves the same conversation.
      store.compact();
      expect(store.eventCountSinceBase()).toBe(0);
      expect(store.load().map((message) => message.id)).toEqual(expected);
    } finally {
      db.close();
    }
  });
});
