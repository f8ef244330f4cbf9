import type { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestToolContext } from '@goondan/core/testing';
import { assistantBundleRoot } from './assistant-bundle-root.ts';
import { assistantDatabase } from './assistant-database.ts';

describe('assistantDatabase', () => {
  test("finds the bundle above .goondan/workspaces/ and migrates each concern's tables once", () => {
    const bundle = mkdtempSync(join(tmpdir(), 'assistant-db-'));
    const ctx = createTestToolContext({ workdir: join(bundle, '.goondan', 'workspaces', 'helper', 'default') });
    expect(assistantBundleRoot(ctx)).toBe(bundle);
    let runs = 0;
    const schema = {
      name: 'probe',
      migrations: [
        {
          version: 1,
          up: (db: Database) => {
            runs++;
            db.run('CREATE TABLE probe_items (x)');
          },
        },
      ],
    };
    const db = assistantDatabase(ctx, schema);
    assistantDatabase(ctx, schema);
    expect(runs).toBe(1);
    expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(db.query('SELECT version FROM assistant_schema WHERE concern = ?').get('probe')).toEqual({ version: 1 });
  });

  test('a workdir outside a bundle is a coded error naming config.bundleDir', () => {
    try {
      assistantBundleRoot(createTestToolContext({ workdir: tmpdir() }));
      throw new Error('no error');
    } catch (error) {
      expect(error).toMatchObject({ code: 'E_TOOL', suggestion: expect.stringContaining('config.bundleDir') });
    }
  });
});
