import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Message, ScriptedStep } from '@goondan/core';
import { userEvent } from '@goondan/core';
import { assistantExposurePreset } from '../../src/exposure/assistant-exposure-preset.ts';
import { openScriptedAssistant, writeTempBundle } from '../../test/scripted-assistant.ts';

const bundleYaml = `
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: script }
spec: { provider: scripted, model: test }
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: notes }
spec:
  entry: ./notes.ts
  exports:
    - name: add
      description: Add a note to the shopping list.
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: assistant }
spec:
  modelConfig: { modelRef: Model/script }
  tools: [Tool/datetime, Tool/notes]
  extensions:
    - ref: Extension/assistant-exposure
      config: { groups: { notes: [notes__add] } }
    - Extension/tool-search
`;

let dir: string;
beforeAll(async () => {
  dir = await writeTempBundle('gdn-assistant-exposure-', {
    'goondan.yaml': bundleYaml,
    'notes.ts': 'export const handlers = { add: (_ctx, input) => ({ added: input.text }) };\n',
  });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function open(steps: ScriptedStep[]) {
  const lines: string[] = [];
  const record = (...values: unknown[]) => lines.push(values.map(String).join(' '));
  const logger = { ...console, log: record, info: record, debug: record, warn: record, error: record } as Console;
  const { instance, model } = await openScriptedAssistant({ dir, steps, stateDir: join(dir, '.state'), logger });
  return { instance, model, lines };
}

function toolResults(messages: readonly Message[]): { status: string; output?: unknown }[] {
  return messages
    .filter((message) => message.data.role === 'tool')
    .map((message) => (message.data.content as { output: { value: never } }[])[0]!.output.value);
}

describe('assistant-exposure', () => {
  test('a task needing an on-demand tool calls it at step 2: tools__search enables, the list only grows at its end', async () => {
    const { instance, model, lines } = await open([
      { toolCalls: [{ name: 'tools__search', args: { query: 'add a note to the shopping list', enable: true } }] },
      { toolCalls: [{ name: 'notes__add', args: { text: 'milk' } }] },
      { text: 'Added milk.' },
    ]);
    expect((await instance.enqueue(userEvent('put milk on my list'))).status).toBe('completed');
    const first = model.calls[0]!;
    const second = model.calls[1]!;
    // The preset's core is always on (the datetime Tool is the one listed Tool of it); notes__add waits.
    expect(first.toolNames).toEqual([
      'tools__list',
      'tools__enable',
      'tools__enable_ttl',
      'tools__reset',
      'tools__search',
      'datetime__now',
      'datetime__parse',
    ]);
    expect(second.toolNames).toEqual([...first.toolNames, 'notes__add']);
    // Byte-identical prefix: enabling appended a tool and changed nothing before it (prompt caches keep hitting).
    expect(JSON.stringify(second.tools.slice(0, first.tools.length))).toBe(JSON.stringify(first.tools));
    const [searched, added] = toolResults(instance.conversation());
    expect(searched).toMatchObject({ status: 'ok', output: { exposure: { enabled: ['notes__add'] } } });
    expect(added).toEqual({ status: 'ok', output: { added: 'milk' } });
    // Preset names of Tools this Agent does not list are not warned about.
    expect(lines.filter((line) => line.includes('baseline tool'))).toEqual([]);
    await instance.close();
  });

  test('the preset names only tools of the catalogue, each in one group', () => {
    const names = Object.values(assistantExposurePreset.groups).flat();
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z]+__[a-z_]+$/);
    expect(assistantExposurePreset.baseline).toEqual(['group:core']);
  });
});
