import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userEvent } from '../agent/agent-event.ts';
import type { AgentInstance } from '../agent/agent-instance.ts';
import { openAgentInstance } from '../agent/open-agent-instance.ts';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel } from '../models/scripted-model.ts';
import type { ToolResult } from '../types.ts';
import { scheduleFiredEvent } from './schedule-event.ts';
import type { ScheduleRecord } from './schedule-types.ts';

const fixture = join(import.meta.dir, '..', 'agent', '__fixtures__', 'basic');
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

const schedule: ScheduleRecord = {
  id: 'sch_1',
  agent: 'helper',
  instanceKey: 'k1',
  kind: 'at',
  expression: '2026-01-01T09:00:00Z',
  timeZone: 'UTC',
  label: 'morning sum',
  input: 'Add one and one.',
  missedPolicy: 'fire-once-late',
  status: 'active',
  nextDueAt: null,
  lastFiredAt: null,
  createdAt: 0,
};

describe('permissions of unattended turns (source system:scheduler)', () => {
  test('a sources rule for system:scheduler denies in a scheduled turn what a person may run', async () => {
    const loaded = await loadBundle({ dir: fixture });
    const agent = loaded.bundle!.resources.get('Agent/helper') as AgentResource;
    agent.spec.permissions = { sources: { 'system:scheduler': { sensitive: 'deny' } } };
    const stateDir = mkdtempSync(join(tmpdir(), 'gdn-scheduled-'));
    const sum = { toolCalls: [{ name: 'calc__add', args: { a: 1, b: 1 } }] };
    const model = createScriptedModel([sum, { text: 'person turn' }, sum, { text: 'scheduled turn' }]);
    const instance: AgentInstance = await openAgentInstance({
      bundle: loaded.bundle!,
      handlers: loaded.handlers,
      agent,
      instanceKey: 'k1',
      model,
      stateDir,
    });
    cleanup.push(
      () => instance.close(),
      () => rmSync(stateDir, { recursive: true, force: true }),
    );
    await instance.enqueue(userEvent('as a person'));
    await instance.enqueue(scheduleFiredEvent({ schedule, scheduledAt: Date.now(), firedAt: Date.now(), late: false }));
    const results = instance
      .conversation()
      .filter((message) => message.data.role === 'tool')
      .flatMap((message) => message.data.content as { output: { value: ToolResult } }[])
      .map((part) => part.output.value);
    expect(results[0]).toEqual({ status: 'ok', output: { sum: 2 } });
    expect(results[1]!.error?.code).toBe('E_POLICY_DENIED');
    expect(results[1]!.error?.message).toContain('system:scheduler');
  });
});
