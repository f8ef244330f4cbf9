import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { createTempDirs } from '../store/test-support.ts';
import { instancePaths, invalidInstanceKey, listInstanceDatabases } from './instance-paths.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

describe('listInstanceDatabases', () => {
  test('finds the state.db of each agent instance, by agent then instance, and skips the rest', () => {
    const rootDir = temp.make();
    for (const [agentName, instanceKey] of [
      ['writer', 'default'],
      ['coder', 'b'],
      ['coder', 'a'],
    ] as const) {
      openInstanceDatabase(instancePaths({ rootDir, agentName, instanceKey }).databaseFile).close();
    }
    // An instance directory without a database, and a stray file beside the agents.
    mkdirSync(join(rootDir, '.goondan', 'instances', 'writer', 'empty'), { recursive: true });
    writeFileSync(join(rootDir, '.goondan', 'instances', 'notes.txt'), 'not an agent');
    expect(listInstanceDatabases({ rootDir })).toEqual([
      { agentName: 'coder', instanceKey: 'a', databaseFile: join(rootDir, '.goondan/instances/coder/a/state.db') },
      { agentName: 'coder', instanceKey: 'b', databaseFile: join(rootDir, '.goondan/instances/coder/b/state.db') },
      {
        agentName: 'writer',
        instanceKey: 'default',
        databaseFile: join(rootDir, '.goondan/instances/writer/default/state.db'),
      },
    ]);
  });

  test('an instance directory linked from elsewhere counts (gdn run follows the link); a dangling link does not', () => {
    const rootDir = temp.make();
    const elsewhere = temp.make();
    openInstanceDatabase(join(elsewhere, 'state.db')).close();
    mkdirSync(join(rootDir, '.goondan', 'instances', 'writer'), { recursive: true });
    symlinkSync(elsewhere, join(rootDir, '.goondan', 'instances', 'writer', 'linked'));
    symlinkSync(join(elsewhere, 'gone'), join(rootDir, '.goondan', 'instances', 'writer', 'dangling'));
    expect(listInstanceDatabases({ rootDir })).toEqual([
      {
        agentName: 'writer',
        instanceKey: 'linked',
        databaseFile: join(rootDir, '.goondan/instances/writer/linked/state.db'),
      },
    ]);
  });

  test('is empty, and creates nothing, when no instance has run', () => {
    const rootDir = temp.make();
    expect(listInstanceDatabases({ rootDir })).toEqual([]);
    expect(listInstanceDatabases({ rootDir, stateDir: join(rootDir, 'elsewhere') })).toEqual([]);
    expect(existsSync(join(rootDir, '.goondan'))).toBe(false);
  });
});

describe('invalidInstanceKey', () => {
  test("quotes the caller's value on one line: control characters escaped, cut at 100 characters", () => {
    const broken = invalidInstanceKey('a\nb\u001b[31m');
    expect(broken.code).toBe('E_INSTANCE_KEY_INVALID');
    expect(broken.message).toBe(
      "Instance key 'a\\nb\\u001b[31m' must be 1-128 letters, digits, '_', '.' or '-', starting with a letter or digit.",
    );
    const long = invalidInstanceKey('k'.repeat(100_000));
    expect(long.message).toStartWith(`Instance key '${'k'.repeat(100)}…' must be`);
    expect(long.message.length).toBeLessThan(300);
    expect(() => instancePaths({ rootDir: '/b', agentName: 'a', instanceKey: '../x' })).toThrow(
      "Instance key '../x' must be",
    );
  });
});
