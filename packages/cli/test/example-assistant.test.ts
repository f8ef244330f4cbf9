import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, gdnJson, makeTempDir, repoRoot } from './helpers.ts';

afterAll(cleanupTempDirs);

// biome-ignore lint/suspicious/noExplicitAny: the JSON printed by gdn, read loosely.
type Loose = any;

describe('examples/assistant', () => {
  test('gdn run plays the exchange with the assistant pack: the card and the memory are stored', async () => {
    const bundle = join(await makeTempDir(), 'assistant');
    await cp(join(repoRoot, 'examples', 'assistant'), bundle, {
      recursive: true,
      filter: (path) => !path.includes('.goondan'),
    });
    const input = 'Put picking up oat milk on my errands, and remember I prefer oat milk.';
    const { result, json } = await gdnJson<Loose>(['run', '--bundle', bundle, '--input', input, '--json']);
    expect(result.exitCode).toBe(0);
    expect(json.status).toBe('completed');
    expect(json.text).toContain('Pick up oat milk');
    expect(json.toolCalls.map((call: Loose) => [call.toolName, call.status])).toEqual([
      ['datetime__now', 'ok'],
      ['kanban__create_board', 'ok'],
      ['kanban__add_card', 'ok'],
      ['memory__save', 'ok'],
      ['kanban__list', 'ok'],
    ]);

    // The tool results as stored: the card in the bundle's assistant.db, the memory found by memory__search.
    const db = new Database(join(bundle, '.goondan', 'assistant.db'), { readonly: true });
    const cards = db.query('SELECT column_name, position, title, priority, labels FROM kanban_cards').all();
    db.close();
    expect(cards).toEqual([
      { column_name: 'To Do', position: 1, title: 'Pick up oat milk', priority: 'high', labels: '["shopping"]' },
    ]);
    const memory = await gdnJson<Loose>(['tools', 'call', '--bundle', bundle, 'memory__search', '{"query":"oat"}']);
    expect(memory.result.exitCode).toBe(0);
    expect(JSON.stringify(memory.json.output)).toContain('prefers oat milk');
  });
});
