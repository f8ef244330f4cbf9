import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel, type ScriptedStep } from '../models/scripted-model.ts';
import type { ToolContext } from '../types.ts';
import { type AgentEvent, userEvent } from './agent-event.ts';
import { openAgentInstance } from './open-agent-instance.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An agent whose tool `work__later` submits a job, and `work__mark`, which turns from Telegram may not call. */
async function open(steps: ScriptedStep[], seen: ToolContext[] = []) {
  let turnsEnded = 0;
  let onEnd: () => void = () => {};
  const dir = mkdtempSync(join(tmpdir(), 'goondan-turn-auth-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'work.ts'), 'export const handlers = {};\n');
  writeFileSync(
    join(dir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: work }
spec:
  entry: ./work.ts
  exports:
    - { name: later, parameters: { type: object } }
    - { name: mark, parameters: { type: object } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: worker }
spec:
  tools: [Tool/work]
  permissions:
    sources:
      user:telegram: { tools: { work__mark: deny } }
`,
  );
  const loaded = await loadBundle({ dir, checkEntries: false });
  let finish: (value: string) => void = () => {};
  const handlers = {
    later: (ctx: ToolContext) => ctx.jobs.submit(() => new Promise<string>((resolve) => (finish = resolve))),
    mark: (ctx: ToolContext) => {
      seen.push(ctx);
      return { marked: true };
    },
  };
  const instance = await openAgentInstance({
    bundle: loaded.bundle!,
    handlers: new Map([['Tool/work', handlers]]),
    agent: loaded.bundle!.resources.get('Agent/worker') as AgentResource,
    instanceKey: 'k',
    stateDir: join(dir, 'state'),
    model: createScriptedModel(steps),
    observer: {
      onTurnEnd: () => {
        turnsEnded += 1;
        onEnd();
      },
    },
  });
  /** Resolves once `count` turns have ended. */
  const turnsEnd = (count: number) =>
    new Promise<void>((resolve) => {
      onEnd = () => {
        if (turnsEnded >= count) resolve();
      };
      onEnd();
    });
  return { instance, finish: (value: string) => finish(value), turnsEnd };
}

describe("a turn's auth context", () => {
  test("a job's completion turn keeps the rules of the source that started it, and its user", async () => {
    const seen: ToolContext[] = [];
    const { instance, finish, turnsEnd } = await open(
      [
        { toolCalls: [{ name: 'work__later', args: {} }] },
        { text: 'started' },
        { toolCalls: [{ name: 'work__mark', args: {} }] },
        { text: 'done' },
      ],
      seen,
    );
    try {
      const event: AgentEvent = { ...userEvent('Start it.', 'telegram'), auth: { userId: 'ada' } };
      expect((await instance.enqueue(event)).text).toBe('started');
      finish('finished');
      await turnsEnd(2);
      const messages = instance.conversation();
      const denied = messages.filter((message) => message.data.role === 'tool').at(-1)!;
      expect(JSON.stringify(denied.data.content)).toContain('E_POLICY_DENIED');
      expect(JSON.stringify(denied.data.content)).toContain('for turns from system:jobs (from user:telegram)');
      expect(seen).toEqual([]);
      // The completion's turn acted for Ada too.
      expect(messages.at(-1)!.metadata.userId).toBe('ada');
    } finally {
      await instance.close();
    }
  });

  test('an auth of the wrong shape is refused with E_EVENT_INVALID', async () => {
    const { instance } = await open([]);
    try {
      for (const auth of [[], { userId: '' }, { userId: 7 }, { userId: 'a\nb' }, { origin: { kind: 'user' } }, 'ada']) {
        const event = { ...userEvent('hi'), auth } as unknown as AgentEvent;
        await expect(instance.enqueue(event)).rejects.toMatchObject({ code: 'E_EVENT_INVALID' });
      }
      expect(instance.conversation()).toEqual([]);
    } finally {
      await instance.close();
    }
  });
});
