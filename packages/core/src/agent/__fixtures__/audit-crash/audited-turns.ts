// Child process of the audit durability test: runs turns of an agent whose every step calls three tools (one sync,
// two async), with the audit log batched as `openAgentInstance` sets it up, until it is killed. Before each step
// whose model request holds tool results it prints a line (the model is about to see them).
// Usage: bun audited-turns.ts <db-path>
import { writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentResource } from '../../../config/resources.ts';
import { createScriptedModel, type ScriptedStep } from '../../../models/scripted-model.ts';
import { AuditBatch } from '../../../store/audit-batch.ts';
import { AuditStore } from '../../../store/audit-store.ts';
import { ConversationStore } from '../../../store/conversation-store.ts';
import { openInstanceDatabase } from '../../../store/open-instance-database.ts';
import { TraceStore } from '../../../store/trace-store.ts';
import { CatalogBuilder } from '../../../tools/catalog-builder.ts';
import { ToolExecutor } from '../../../tools/tool-executor.ts';
import { ToolRegistry } from '../../../tools/tool-registry.ts';
import { userEvent } from '../../agent-event.ts';
import { AgentInstance } from '../../agent-instance.ts';

const [dbPath] = process.argv.slice(2);
if (dbPath === undefined) throw new Error('usage: audited-turns.ts <db-path>');

const registry = new ToolRegistry();
const parameters = { type: 'object' as const, properties: { value: { type: 'integer' } }, required: ['value'] };
const source = (name: string) => ({ type: 'config' as const, name });
registry.register({ name: 'calc__now', parameters, source: source('calc') }, (_ctx, input) => ({ got: input.value }));
registry.register({ name: 'calc__later', parameters, source: source('calc') }, async (_ctx, input) => {
  await Bun.sleep(1);
  return { got: input.value };
});
const steps: ScriptedStep[] = [];
for (let index = 0; index < 20_000; index += 1) {
  steps.push(
    {
      toolCalls: [
        { name: 'calc__now', args: { value: index } },
        { name: 'calc__later', args: { value: index } },
        { name: 'calc__later', args: { value: -index } },
      ],
    },
    { text: `done ${index}` },
  );
}
const db = openInstanceDatabase(dbPath);
const audit = new AuditBatch(db, new AuditStore(db));
const agent = { apiVersion: 'goondan.ai/v1', kind: 'Agent', metadata: { name: 'crash' }, spec: {} } as AgentResource;
const instance = new AgentInstance({
  agent,
  instanceKey: 'crash',
  toolset: {
    agent,
    registry,
    catalogBuilder: new CatalogBuilder(registry, ['calc']),
    executor: new ToolExecutor({ registry }),
    unavailable: new Map(),
  },
  model: createScriptedModel(steps),
  conversation: new ConversationStore(db),
  traces: new TraceStore(db),
  workdir: dirname(dbPath),
  audit: (entry) => audit.append(entry),
  auditLog: audit,
  observer: {
    onStepStart: ({ stepIndex }) => {
      // Synchronous write to fd 1: the parent reads it only after the results before it were committed.
      if (stepIndex > 0) writeSync(1, 'model sees tool results\n');
    },
  },
});
for (;;) await instance.enqueue(userEvent('go'));
