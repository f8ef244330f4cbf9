import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel } from '../models/scripted-model.ts';
import { userEvent } from './agent-event.ts';
import { openAgentInstance } from './open-agent-instance.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function bundleDir(toolConcurrency: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-concurrency-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'slow.ts'), 'export const handlers = {};\n');
  writeFileSync(
    join(dir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: slow }
spec:
  entry: ./slow.ts
  exports:
    - name: wait
      parameters: { type: object, properties: { index: { type: integer } } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: worker }
spec:
  tools: [Tool/slow]
  toolConcurrency: ${toolConcurrency}
`,
  );
  return dir;
}

describe('Agent spec.toolConcurrency', () => {
  test('caps how many calls of one step run at once; results keep the call order', async () => {
    const dir = bundleDir('3');
    const loaded = await loadBundle({ dir, checkEntries: false });
    expect(loaded.problems).toEqual([]);
    let running = 0;
    let most = 0;
    const wait = async (_ctx: unknown, input: { index: number }) => {
      running += 1;
      most = Math.max(most, running);
      // Work that takes a while: the first three calls are all still running when the pool fills.
      await Bun.sleep(5);
      running -= 1;
      return { index: input.index };
    };
    const calls = Array.from({ length: 7 }, (_, index) => ({ name: 'slow__wait', args: { index } }));
    const instance = await openAgentInstance({
      bundle: loaded.bundle!,
      handlers: new Map([['Tool/slow', { wait }]]),
      agent: loaded.bundle!.resources.get('Agent/worker') as AgentResource,
      instanceKey: 'k',
      stateDir: join(dir, 'state'),
      model: createScriptedModel([{ toolCalls: calls }, { text: 'done' }]),
    });
    try {
      const result = await instance.enqueue(userEvent('go'));
      expect(result.status).toBe('completed');
      expect(most).toBe(3);
      const outputs = instance
        .conversation()
        .filter((message) => message.data.role === 'tool')
        .map((message) => JSON.stringify(message.data.content));
      expect(outputs.map((text) => Number(/"index":(\d+)/.exec(text)?.[1]))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    } finally {
      await instance.close();
    }
  });

  test('is validated: an integer from 1 to 1000', async () => {
    for (const value of ['0', '1001', '2.5', 'many']) {
      const loaded = await loadBundle({ dir: bundleDir(value), checkEntries: false });
      expect(loaded.problems.map((problem) => [problem.code, problem.path])).toEqual([
        ['E_RESOURCE_INVALID', 'spec.toolConcurrency'],
      ]);
    }
  });
});
