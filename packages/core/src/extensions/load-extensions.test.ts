import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userEvent } from '../agent/agent-event.ts';
import { openAgentInstance } from '../agent/open-agent-instance.ts';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel, type ScriptedStep } from '../models/scripted-model.ts';

const fixture = join(import.meta.dir, '__fixtures__', 'ext');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(agentName: string, steps: ScriptedStep[], stateDir = mkdtempSync(join(tmpdir(), 'gdn-ext-'))) {
  dirs.push(stateDir);
  const loaded = await loadBundle({ dir: fixture });
  expect(loaded.problems).toEqual([]);
  const model = createScriptedModel(steps);
  const instance = await openAgentInstance({
    bundle: loaded.bundle!,
    handlers: loaded.handlers,
    agent: loaded.bundle!.resources.get(`Agent/${agentName}`) as AgentResource,
    instanceKey: 'x',
    model,
    stateDir,
    logger: { ...console, log() {}, info() {}, debug() {} } as Console,
  });
  return { instance, model, stateDir };
}

function toolOutputs(messages: { data: { role: string; content: unknown } }[]) {
  return messages
    .filter((message) => message.data.role === 'tool')
    .map((message) => (message.data.content as { output: { value: unknown } }[])[0]!.output.value);
}

describe('extensions (spec §8.4, §12)', () => {
  test('spec §12.3: a tool registered by an extension is in the catalog from the next step, with source extension', async () => {
    const { instance, model } = await open('with-weather', [
      { text: 'first step' },
      { toolCalls: [{ name: 'weather__get', args: { city: 'Seoul' } }] },
      { text: 'done' },
    ]);
    await instance.enqueue(userEvent('one'));
    await instance.enqueue(userEvent('two'));
    expect(model.calls[0]!.toolNames).toEqual(['calc__add']);
    expect(model.calls[1]!.toolNames).toEqual(['calc__add', 'weather__get']);
    const [result] = toolOutputs(instance.conversation()) as { status: string; output: Record<string, unknown> }[];
    expect(result!.status).toBe('ok');
    // Extension config merged with the Agent's per-reference config.
    expect(result!.output).toMatchObject({ city: 'Seoul', unit: 'celsius', greeting: 'hi' });
    // toolCall middleware ran in priority order: -10 (outer) before 10 (inner).
    expect(result!.output.trail).toEqual(['outer weather__get', 'inner weather__get']);
  });

  test('a toolCall middleware error becomes a ToolResult naming the extension', async () => {
    const { instance } = await open('with-weather', [
      { toolCalls: [{ name: 'calc__add', args: { a: 666, b: 1 } }] },
      { text: 'ok' },
    ]);
    const turn = await instance.enqueue(userEvent('beast'));
    expect(turn.status).toBe('completed');
    const [result] = toolOutputs(instance.conversation()) as { error: { code: string; message: string } }[];
    expect(result!.error.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result!.error.message).toBe("Extension 'weather': refusing the number of the beast");
  });

  test('per-instance state persists across restarts of the instance', async () => {
    const first = await open('with-weather', [{ text: 'a' }]);
    await first.instance.enqueue(userEvent('a'));
    await first.instance.close();
    const second = await open('with-weather', [{ text: 'b' }], first.stateDir);
    await second.instance.close();
    const { InstanceStateStore } = await import('../store/instance-state-store.ts');
    const { openInstanceDatabase } = await import('../store/open-instance-database.ts');
    const { instancePaths } = await import('../agent/instance-paths.ts');
    const db = openInstanceDatabase(
      instancePaths({ rootDir: fixture, agentName: 'with-weather', instanceKey: 'x', stateDir: first.stateDir })
        .databaseFile,
    );
    const state = new InstanceStateStore(db);
    expect(state.getState('ext:weather:loads')).toBe(2);
    expect(String(state.getState('ext:weather:lastTurn'))).toStartWith('turn_');
    db.close();
  });

  test('a middleware registered with a priority that is not a finite number fails the start with E_EXTENSION_LOAD', async () => {
    await expect(open('with-bad-priority', [])).rejects.toMatchObject({
      code: 'E_EXTENSION_LOAD',
      message:
        'Extension \'bad-priority\' registered a toolCall middleware with priority "high": a priority is a finite number (lower runs first, outermost; default 0).',
    });
    await expect(open('with-nan-priority', [])).rejects.toMatchObject({
      code: 'E_EXTENSION_LOAD',
      message: expect.stringContaining('registered a toolCall middleware with priority NaN:'),
    });
  });

  test('an extension that throws while registering fails the start with E_EXTENSION_LOAD naming it', async () => {
    await expect(open('with-broken', [])).rejects.toMatchObject({
      code: 'E_EXTENSION_LOAD',
      message: "Extension 'broken' failed to load: cannot start: no credentials",
    });
  });
});

describe('a middleware that forgets to return what next() resolved to', () => {
  test('toolCall: the call is answered E_TOOL_MIDDLEWARE naming the extension; the turn goes on', async () => {
    const { instance } = await open('forgets-tool-calls', [
      { toolCalls: [{ name: 'calc__add', args: { a: 1, b: 2 } }] },
      { text: 'ok' },
    ]);
    const turn = await instance.enqueue(userEvent('add'));
    expect(turn.status).toBe('completed');
    const [result] = toolOutputs(instance.conversation()) as { error: { code: string; message: string } }[];
    expect(result!.error.code).toBe('E_TOOL_MIDDLEWARE');
    expect(result!.error.message).toStartWith(
      "Extension 'forgetful': A toolCall middleware resolved to nothing instead of a tool result",
    );
    await instance.close();
  });

  test.each([
    ['forgets-steps', "Extension 'forgetful': A step middleware resolved to nothing"],
    ['forgets-turns', "Extension 'forgetful': A turn middleware resolved to nothing"],
  ])(
    '%s: the turn ends as an E_TURN_FAILED result naming the extension, and the next turn runs',
    async (agent, says) => {
      const { instance } = await open(agent, [{ text: 'one' }, { text: 'two' }]);
      const turn = await instance.enqueue(userEvent('hello'));
      expect(turn.status).toBe('error');
      expect(turn.error?.code).toBe('E_TURN_FAILED');
      expect(turn.error?.message).toContain(says);
      expect(turn.error?.message).toContain('return what ctx.next() resolves to');
      // The conversation is closed, not left with an unanswered user message, and the instance still answers.
      expect(instance.conversation().at(-1)!.data.role).toBe('assistant');
      expect((await instance.enqueue(userEvent('again'))).status).toBe('error');
      await instance.close();
    },
  );
});
