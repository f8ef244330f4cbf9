import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScriptedStep } from '@goondan/core';
import { userEvent } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { openScriptedAssistant, writeTempBundle } from '../../test/scripted-assistant.ts';
import { handlers as memory } from '../../tools/memory/index.ts';

const bundleYaml = `
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: script }
spec: { provider: scripted, model: test }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: assistant }
spec:
  modelConfig: { modelRef: Model/script }
  prompt: { system: You are a helpful assistant. }
  tools: [Tool/memory, Tool/user]
  extensions: [Extension/memory]
`;

let dir: string;
beforeAll(async () => {
  dir = await writeTempBundle('gdn-assistant-memory-', { 'goondan.yaml': bundleYaml });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const open = (steps: ScriptedStep[]) => openScriptedAssistant({ dir, steps });

describe('Extension memory', () => {
  test('matching memories reach the model before the user message; system prompt and tools never change, input only grows', async () => {
    const ctx = createTestToolContext({
      workdir: join(dir, '.goondan', 'workspaces', 'assistant', 'test'),
      agentName: 'assistant',
    });
    memory.save(ctx, { content: '내일 회의 준비: 발표 자료', scope: 'workspace' });
    memory.save(ctx, { content: '점심은 김치찌개', scope: 'workspace' });
    const { instance, model } = await open([
      { toolCalls: [{ name: 'memory__save', args: { content: '회의 장소는 3층 회의실', scope: 'workspace' } }] },
      { text: '기억했어요.' },
      { text: '3층 회의실이에요.' },
    ]);
    expect((await instance.enqueue(userEvent('내일 회의 뭐 준비해야 돼?'))).status).toBe('completed');
    expect((await instance.enqueue(userEvent('회의 장소 어디야?'))).status).toBe('completed');
    const calls = model.calls;
    expect(calls).toHaveLength(3);
    const texts = (index: number) => calls[index]!.prompt.map((message) => JSON.stringify(message.content));

    // Turn 1: the block with the matching memory (not the unrelated one) comes right before the user message.
    const first = texts(0);
    expect(first.at(-2)).toContain('내일 회의 준비: 발표 자료');
    expect(first.at(-2)).not.toContain('김치찌개');
    expect(first.at(-1)).toContain('내일 회의 뭐 준비해야 돼?');
    // Turn 2 recalls the memory saved in turn 1.
    expect(texts(2).at(-2)).toContain('3층 회의실');

    // The system prompt and the tools are byte-identical in every call, whatever memory did in between.
    for (const call of calls) {
      expect(JSON.stringify(call.prompt[0])).toBe(JSON.stringify(calls[0]!.prompt[0]));
      expect(call.prompt[0]!.role).toBe('system');
      expect(JSON.stringify(call.tools)).toBe(JSON.stringify(calls[0]!.tools));
    }
    // Each call's input starts with the whole previous input, byte for byte: a memory saved mid-turn does not
    // rewrite the block already shown, and turn 1's block is still there in turn 2.
    for (let k = 1; k < calls.length; k++) {
      const before = JSON.stringify(calls[k - 1]!.prompt);
      const now = JSON.stringify(calls[k]!.prompt.slice(0, calls[k - 1]!.prompt.length));
      expect(now).toBe(before);
    }
    // And each message is converted for the model once: the earlier input is the same objects as the call before
    // received, recall blocks included (the extension keeps one object per block).
    for (let k = 1; k < calls.length; k++) {
      const previous = calls[k - 1]!.prompt;
      for (let index = 1; index < previous.length; index += 1) expect(calls[k]!.prompt[index]).toBe(previous[index]!);
    }
    // The stored conversation holds no recall block.
    expect(instance.conversation().filter((message) => message.source.type === 'extension')).toEqual([]);
    await instance.close();
  });
});
