import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConversationStore } from '../store/conversation-store.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';

const fixture = join(import.meta.dir, '__fixtures__', 'audit-crash', 'audited-turns.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs the fixture until it has printed `lines` lines, then kills it with SIGKILL. */
async function runAndKill(dbPath: string, lines: number): Promise<number> {
  const child = Bun.spawn([process.execPath, fixture, dbPath], { stdout: 'pipe', stderr: 'pipe' });
  let seen = 0;
  let pending = '';
  try {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      seen += parts.length;
      if (seen >= lines) break;
    }
  } finally {
    child.kill('SIGKILL');
    await child.exited;
  }
  if (seen < lines) throw new Error(`fixture ended early: ${await new Response(child.stderr).text()}`);
  expect(child.signalCode).toBe('SIGKILL');
  return seen;
}

describe('audit log durability (batched rows)', () => {
  test('a process killed with SIGKILL loses no audit row of a tool result the model was given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-audit-crash-'));
    dirs.push(dir);
    const dbPath = join(dir, 'state.db');
    const seen = await runAndKill(dbPath, 40);
    const db = openInstanceDatabase(dbPath);
    try {
      // Every result in the conversation is one the model was or would be given; each must have its audit row.
      const results = new ConversationStore(db)
        .load()
        .filter((message) => message.data.role === 'tool')
        .map((message) => message.source)
        .flatMap((source) => (source.type === 'tool' ? [source.toolCallId] : []));
      const audited = new Set(
        db
          .query<{ id: string }, []>('SELECT tool_call_id AS id FROM audit_log')
          .all()
          .map((row) => row.id),
      );
      expect(results.length).toBeGreaterThanOrEqual(seen * 3);
      expect(results.filter((id) => !audited.has(id))).toEqual([]);
    } finally {
      db.close();
    }
  }, 60_000);
});
