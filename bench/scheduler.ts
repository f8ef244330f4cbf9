/**
 * Durable scheduler (issue 12): 10,000 pending schedules in the bundle store; a batch of them comes due and each
 * firing is delivered the way `gdn serve` does it, into the target instance's inbox (the durable "accepted"
 * point of Orchestrator.send). Measured per firing: time from its due instant to the event stored in the
 * instance database (median, p99), plus the time to add 10,000 schedules. Real clock, real SQLite files.
 * Usage: bun bench/scheduler.ts [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openInstanceDatabase, openScheduleStore, Scheduler } from '@goondan/core';
// The inbox is internal to core: the Orchestrator's send stores into it exactly like this.
import { InboxStore } from '../packages/core/src/store/inbox-store.ts';

const json = process.argv.includes('--json');
const pending = 10_000;
const firing = 2_000;
const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-sched-'));
const store = openScheduleStore({ path: join(dir, 'schedules.db') });
const inbox = new InboxStore(openInstanceDatabase(join(dir, 'instances', 'assistant', 'default', 'state.db')));
const appendedAt = new Map<string, number>();
const scheduledAt = new Map<string, number>();
let delivered = 0;
let allDelivered: () => void = () => {};
const done = new Promise<void>((resolve) => {
  allDelivered = resolve;
});

const scheduler = new Scheduler({
  store,
  deliver: async (_target, event) => {
    inbox.put(event);
    appendedAt.set(event.id, Date.now());
    scheduledAt.set(event.id, Date.parse((event.data as { scheduledAt: string }).scheduledAt));
    delivered += 1;
    if (delivered === firing) allDelivered();
  },
});

const now = Date.now();
const addStart = performance.now();
// `firing` schedules come due over 4 s starting 3 s from now; the rest wait a year away.
for (let i = 0; i < pending; i += 1) {
  const inMs = i < firing ? 3_000 + Math.floor((i * 4_000) / firing) : 365 * 86_400_000 + i;
  scheduler.add({ agent: 'assistant', instanceKey: 'default', inMs: inMs - (Date.now() - now), input: `alarm ${i}` });
}
const addMs = performance.now() - addStart;
scheduler.start();
await done;
await scheduler.stop();

const lags = [...appendedAt].map(([id, at]) => at - scheduledAt.get(id)!).sort((a, b) => a - b);
const pick = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!;
const result = {
  pendingSchedules: pending,
  fired: lags.length,
  addPerScheduleMs: Number((addMs / pending).toFixed(3)),
  dueToAppendedMs: { median: pick(0.5), p99: pick(0.99), max: lags.at(-1)! },
};
store.close();
rmSync(dir, { recursive: true, force: true });
if (json) console.log(JSON.stringify(result));
else {
  console.log(`scheduler: ${pending} pending schedules, ${lags.length} fired over 4 s`);
  console.log(`  add            ${result.addPerScheduleMs} ms per schedule`);
  console.log(
    `  due → appended median ${result.dueToAppendedMs.median} ms, p99 ${result.dueToAppendedMs.p99} ms, max ${result.dueToAppendedMs.max} ms`,
  );
}
