// Child of scheduler-crash.test.ts: fires one due schedule into a real agent instance, lets the turn append it,
// says so, then hangs before the firing is marked delivered (the parent kills it there).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openAgentInstance } from '../../agent/open-agent-instance.ts';
import { loadBundle } from '../../config/load-bundle.ts';
import type { AgentResource } from '../../config/resources.ts';
import { createScriptedModel } from '../../models/scripted-model.ts';
import { openScheduleStore } from '../schedule-store.ts';
import { Scheduler } from '../scheduler.ts';

const [stateDir, marker] = process.argv.slice(2) as [string, string];
const loaded = await loadBundle({ dir: join(import.meta.dir, '..', '..', 'agent', '__fixtures__', 'basic') });
const instance = await openAgentInstance({
  bundle: loaded.bundle!,
  handlers: loaded.handlers,
  agent: loaded.bundle!.resources.get('Agent/helper') as AgentResource,
  instanceKey: 'k1',
  model: createScriptedModel([{ text: 'Stretched.' }]),
  stateDir,
});
const scheduler = new Scheduler({
  store: openScheduleStore({ path: join(stateDir, 'schedules.db') }),
  deliver: async (_target, event) => {
    await instance.enqueue(event);
    writeFileSync(marker, event.id);
    await new Promise(() => {});
  },
});
scheduler.add({ agent: 'helper', instanceKey: 'k1', inMs: 1, input: 'Time to stretch.' });
await Bun.sleep(5);
await scheduler.runDue();
