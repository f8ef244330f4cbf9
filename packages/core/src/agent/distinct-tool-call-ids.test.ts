import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel } from '../models/scripted-model.ts';
import type { Message, ModelMessage } from '../types.ts';
import { userEvent } from './agent-event.ts';
import { createMessage, toolCallsOf, toolResultIdsOf } from './create-message.ts';
import { distinctToolCallIds } from './distinct-tool-call-ids.ts';
import { openAgentInstance } from './open-agent-instance.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function answer(ids: string[]): Message {
  const content = ids.map((id, index) => ({ type: 'tool-call', toolCallId: id, toolName: 't__x', input: { index } }));
  return createMessage({ role: 'assistant', content } as unknown as ModelMessage, { type: 'assistant' });
}

describe('distinctToolCallIds', () => {
  test('leaves an answer whose ids differ as it is (the same objects)', () => {
    const assistant = [answer(['a', 'b'])];
    const calls = [
      { id: 'a', name: 't__x', args: {} },
      { id: 'b', name: 't__x', args: {} },
    ];
    const out = distinctToolCallIds(assistant, calls);
    expect(out.assistant).toBe(assistant);
    expect(out.calls).toBe(calls);
  });

  test('renames repeats and empty ids in the message and the calls alike, avoiding ids already there', () => {
    const assistant = [answer(['call_0', 'call_0', 'call_0_2', '', 'call_0'])];
    const calls = ['call_0', 'call_0', 'call_0_2', '', 'call_0'].map((id, index) => ({
      id,
      name: 't__x',
      args: { index },
    }));
    const out = distinctToolCallIds(assistant, calls);
    const ids = out.calls.map((call) => call.id);
    expect(ids).toEqual(['call_0', 'call_0_3', 'call_0_2', 'call_2', 'call_0_4']);
    expect(toolCallsOf(out.assistant[0]!).map((part) => part.toolCallId)).toEqual(ids);
    // Each call keeps its own arguments, in the message too.
    expect(toolCallsOf(out.assistant[0]!).map((part) => (part.input as { index: number }).index)).toEqual([
      0, 1, 2, 3, 4,
    ]);
    // The model's own message is not changed in place.
    expect(toolCallsOf(assistant[0]!).map((part) => part.toolCallId)).toEqual(calls.map((call) => call.id));
  });
});

describe('a model answer that repeats a tool-call id', () => {
  test('each call gets one result of its own, and the stored history reopens unrepaired', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-dup-ids-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'echo.ts'), 'export const handlers = {};\n');
    writeFileSync(
      join(dir, 'goondan.yaml'),
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: echo }
spec:
  entry: ./echo.ts
  exports:
    - name: say
      parameters: { type: object, properties: { word: { type: string } } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: worker }
spec:
  tools: [Tool/echo]
`,
    );
    const loaded = await loadBundle({ dir, checkEntries: false });
    const open = (model: ReturnType<typeof createScriptedModel>) =>
      openAgentInstance({
        bundle: loaded.bundle!,
        handlers: new Map([['Tool/echo', { say: (_ctx: unknown, input: { word: string }) => ({ said: input.word }) }]]),
        agent: loaded.bundle!.resources.get('Agent/worker') as AgentResource,
        instanceKey: 'k',
        stateDir: join(dir, 'state'),
        model,
      });
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'echo__say', args: { word: 'one' }, id: 'call_0' },
          { name: 'echo__say', args: { word: 'two' }, id: 'call_0' },
        ],
      },
      { text: 'done' },
    ]);
    const instance = await open(model);
    let stored: Message[];
    try {
      expect((await instance.enqueue(userEvent('go'))).status).toBe('completed');
      stored = instance.conversation();
    } finally {
      await instance.close();
    }
    const calls = stored.flatMap(toolCallsOf);
    expect(calls.map((call) => call.toolCallId)).toEqual(['call_0', 'call_0_2']);
    const results = stored.filter((message) => message.data.role === 'tool');
    expect(results.map((message) => toolResultIdsOf(message)[0])).toEqual(['call_0', 'call_0_2']);
    expect(JSON.stringify(results[1]!.data.content)).toContain('"said":"two"');
    // The second request showed the model both calls, each answered once, under distinct ids.
    const prompt = JSON.stringify(model.calls[1]!.prompt);
    expect(prompt.match(/"toolCallId":"call_0_2"/g)?.length).toBe(2);
    // Reopened, the history is the same (nothing for the repair to drop or abort).
    const again = await open(createScriptedModel([]));
    try {
      expect(again.conversation().map((message) => JSON.stringify(message.data))).toEqual(
        stored.map((message) => JSON.stringify(message.data)),
      );
    } finally {
      await again.close();
    }
  });
});
