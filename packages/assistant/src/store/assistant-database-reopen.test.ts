import { Database } from 'bun:sqlite';
import { afterEach, expect, spyOn, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assistantDatabaseAt, assistantDatabasePath } from './assistant-database.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const schema = {
  name: 'probe',
  migrations: [{ version: 1, up: (db: Database) => db.run('CREATE TABLE probe_items (x TEXT)') }],
};

test('.goondan deleted under a process that has assistant.db open: the next use creates it afresh, its writes kept', () => {
  const bundle = mkdtempSync(join(tmpdir(), 'assistant-db-reopen-'));
  dirs.push(bundle);
  const path = assistantDatabasePath(bundle);
  assistantDatabaseAt(path, schema).run("INSERT INTO probe_items VALUES ('before')");
  rmSync(join(bundle, '.goondan'), { recursive: true, force: true });

  const said = spyOn(console, 'error').mockImplementation(() => {});
  try {
    // Its schema again, as at a first start, then the write goes to the file at the path.
    assistantDatabaseAt(path, schema).run("INSERT INTO probe_items VALUES ('after')");
    assistantDatabaseAt(path, schema).run("INSERT INTO probe_items VALUES ('later')");
    expect(said).toHaveBeenCalledTimes(1);
    expect(String(said.mock.calls[0]?.[0])).toContain(`${path} was deleted or replaced`);
  } finally {
    said.mockRestore();
  }
  expect(existsSync(path)).toBe(true);
  const onDisk = new Database(path, { readonly: true });
  try {
    expect(onDisk.query('SELECT x FROM probe_items').all()).toEqual([{ x: 'after' }, { x: 'later' }]);
  } finally {
    onDisk.close();
  }
});
