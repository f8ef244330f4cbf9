import { afterEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel } from '../models/scripted-model.ts';
import type { AgentEvent } from './agent-event.ts';
import { openAgentInstance } from './open-agent-instance.ts';

const fixture = join(import.meta.dir, '__fixtures__', 'basic');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const event: AgentEvent = {
  id: 'sched_sch_test_1768032000000',
  type: 'schedule.fired',
  input: 'Time to stretch.',
  source: { kind: 'system', name: 'scheduler' },
  createdAt: '2026-01-10T08:00:00.000Z',
};

test('an event delivered again (same id, even to a new process, even after a reset) runs its turn once', async () => {
  const loaded = await loadBundle({ dir: fixture });
  const bundle = loaded.bundle!;
  const stateDir = mkdtempSync(join(tmpdir(), 'gdn-redeliver-'));
  dirs.push(stateDir);
  const agent = bundle.resources.get('Agent/helper') as AgentResource;
  const model = createScriptedModel([{ text: 'Stretched.' }, { text: 'A second turn.' }]);
  const openIt = () =>
    openAgentInstance({ bundle, handlers: loaded.handlers, agent, instanceKey: 'k1', model, stateDir });
  const first = await openIt();
  expect((await first.enqueue(event)).text).toBe('Stretched.');
  expect((await first.enqueue(event)).steps).toBe(0);
  await first.close();
  const second = await openIt();
  const again = await second.enqueue(event);
  expect(again.steps).toBe(0);
  expect(again.reason).toContain('handled before');
  second.reset();
  expect((await second.enqueue(event)).steps).toBe(0);
  expect(model.calls).toHaveLength(1);
  await second.close();
});
