import { afterEach, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAgentInstance } from '../agent/open-agent-instance.ts';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel } from '../models/scripted-model.ts';
import { openScheduleStore } from './schedule-store.ts';
import { Scheduler } from './scheduler.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test('a process killed after the instance appended a firing but before it was marked delivered: redelivered once, run once', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'gdn-sched-crash-'));
  dirs.push(stateDir);
  const marker = join(stateDir, 'appended');
  const child = Bun.spawn(
    [process.execPath, join(import.meta.dir, '__fixtures__', 'crash-child.ts'), stateDir, marker],
    {
      stdout: 'ignore',
      stderr: 'inherit',
    },
  );
  const deadline = Date.now() + 60_000;
  while (!existsSync(marker) && child.exitCode === null && Date.now() < deadline) await Bun.sleep(20);
  expect(existsSync(marker)).toBe(true);
  child.kill('SIGKILL');
  await child.exited;
  const eventId = readFileSync(marker, 'utf8');

  const store = openScheduleStore({ path: join(stateDir, 'schedules.db') });
  expect(store.undelivered().map((firing) => firing.eventId)).toEqual([eventId]);
  const loaded = await loadBundle({ dir: join(import.meta.dir, '..', 'agent', '__fixtures__', 'basic') });
  const model = createScriptedModel([{ text: 'Stretched again.' }]);
  const instance = await openAgentInstance({
    bundle: loaded.bundle!,
    handlers: loaded.handlers,
    agent: loaded.bundle!.resources.get('Agent/helper') as AgentResource,
    instanceKey: 'k1',
    model,
    stateDir,
  });
  const ids: string[] = [];
  const scheduler = new Scheduler({
    store,
    deliver: async (_target, event) => {
      ids.push(event.id);
      await instance.enqueue(event);
    },
  });
  expect(await scheduler.runDue()).toBe(1);
  expect(ids).toEqual([eventId]);
  expect(store.undelivered()).toEqual([]);
  expect(model.calls).toHaveLength(0);
  const users = instance.conversation().filter((message) => message.data.role === 'user');
  expect(users.map((message) => message.data.content)).toEqual(['Time to stretch.']);
  await instance.close();
  store.close();
}, 120_000);
