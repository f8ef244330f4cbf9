import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { userEvent } from '../agent/agent-event.ts';
import { instancePaths } from '../agent/instance-paths.ts';
import { openAgentInstance } from '../agent/open-agent-instance.ts';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel } from '../models/scripted-model.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { RuntimeNotices } from './runtime-notices.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

describe('RuntimeNotices', () => {
  test('notices added from another connection are taken once, oldest first', () => {
    const file = join(temp.make(), 'state.db');
    const writer = openInstanceDatabase(file);
    const reader = openInstanceDatabase(file);
    new RuntimeNotices(writer).add('first');
    new RuntimeNotices(writer).add('second');
    expect(new RuntimeNotices(reader).take()).toEqual(['first', 'second']);
    expect(new RuntimeNotices(reader).take()).toEqual([]);
    writer.close();
    reader.close();
  });

  test("a pending notice is part of the instance's next turn, before the event, and stored so it is seen once", async () => {
    const loaded = await loadBundle({ dir: join(import.meta.dir, '..', 'agent', '__fixtures__', 'basic') });
    const bundle = loaded.bundle!;
    const stateDir = temp.make();
    const { databaseFile } = instancePaths({
      rootDir: bundle.rootDir,
      agentName: 'helper',
      instanceKey: 'k1',
      stateDir,
    });
    const db = openInstanceDatabase(databaseFile);
    new RuntimeNotices(db).add('The bundle changed: revision abc1234 is active.');
    db.close();
    const model = createScriptedModel([{ text: 'one' }, { text: 'two' }]);
    const instance = await openAgentInstance({
      bundle,
      handlers: loaded.handlers,
      agent: bundle.resources.get('Agent/helper') as AgentResource,
      instanceKey: 'k1',
      model,
      stateDir,
    });
    // Opening the instance starts no turn of its own.
    expect(model.calls).toEqual([]);
    await instance.enqueue(userEvent('hello'));
    await instance.enqueue(userEvent('again'));
    await instance.close();
    const said = (call: number) =>
      model.calls[call]!.prompt.filter((message) => message.role === 'user').map((message) =>
        JSON.stringify(message.content),
      );
    expect(said(0)).toEqual([
      expect.stringContaining('The bundle changed: revision abc1234 is active.'),
      expect.stringContaining('hello'),
    ]);
    // Once in the history, not again before the next event.
    expect(said(1)).toHaveLength(3);
    expect(said(1)[2]).toContain('again');
    const sources = instance.conversation().map((message) => message.source.type);
    expect(sources).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });
});
