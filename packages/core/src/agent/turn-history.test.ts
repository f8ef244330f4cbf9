// The history a turn leaves for the next one: a failed turn is closed (not left as an unanswered user message),
// and a conversation whose tool results a second writer scattered is repaired when the instance opens.
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import { createScriptedModel, type ScriptedStep } from '../models/scripted-model.ts';
import { streamModelStep } from '../models/stream-model-step.ts';
import { ConversationStore } from '../store/conversation-store.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import type { Message } from '../types.ts';
import { userEvent } from './agent-event.ts';
import { createMessage } from './create-message.ts';
import { instancePaths } from './instance-paths.ts';
import { openAgentInstance } from './open-agent-instance.ts';
import { toToolResultPart } from './to-tool-result-part.ts';

const fixture = join(import.meta.dir, '__fixtures__', 'basic');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(steps: ScriptedStep[], stateDir = mkdtempSync(join(tmpdir(), 'gdn-history-'))) {
  dirs.push(stateDir);
  const loaded = await loadBundle({ dir: fixture });
  const bundle = loaded.bundle!;
  const agent = bundle.resources.get('Agent/helper') as AgentResource;
  const model = createScriptedModel(steps);
  const warnings: string[] = [];
  const logger = { ...console, warn: (line: string) => warnings.push(line) } as Console;
  const instance = await openAgentInstance({
    bundle,
    handlers: loaded.handlers,
    agent,
    instanceKey: 'k1',
    model,
    stateDir,
    logger,
  });
  return { instance, model, stateDir, bundle, warnings };
}

/** Roles of a prompt the model received, without the system prompt. */
function promptRoles(prompt: { role: string }[]): string[] {
  return prompt.filter((message) => message.role !== 'system').map((message) => message.role);
}

/** Every tool message directly follows the assistant message (or results) of its calls. */
function expectResultsFollowCalls(prompt: { role: string; content: unknown }[]): void {
  let open = new Set<string>();
  for (const message of prompt) {
    const parts = Array.isArray(message.content) ? (message.content as { type: string; toolCallId?: string }[]) : [];
    if (message.role === 'tool') {
      for (const part of parts) expect(open.delete(part.toolCallId!)).toBe(true);
      continue;
    }
    expect([...open]).toEqual([]);
    open = new Set(parts.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId!));
  }
}

describe('a turn that does not complete', () => {
  test('a failed model call leaves no run of user messages: the turn is closed with a note naming the error', async () => {
    const { instance, model } = await open([{ error: 'provider is down' }, { text: 'Hello again.' }]);
    const failed = await instance.enqueue(userEvent('first request'));
    expect(failed.status).toBe('error');
    const next = await instance.enqueue(userEvent('second request'));
    expect(next.status).toBe('completed');
    const prompt = model.calls[1]!.prompt;
    expect(promptRoles(prompt)).toEqual(['user', 'assistant', 'user']);
    const note = JSON.stringify(prompt[2]);
    expect(note).toContain('did not complete');
    expect(note).toContain('E_MODEL_CALL_FAILED');
    const stored = instance.conversation()[1]!;
    expect(stored.metadata).toMatchObject({ turnOutcome: 'error', errorCode: 'E_MODEL_CALL_FAILED' });
    await instance.close();
  });

  test('a turn cancelled before the model answered is closed too', async () => {
    const { instance, model } = await open([{ text: 'Hi.' }]);
    const controller = new AbortController();
    controller.abort('stop');
    const cancelled = await instance.enqueue(userEvent('never answered'), { signal: controller.signal });
    expect(cancelled.status).toBe('cancelled');
    await instance.enqueue(userEvent('now answer'));
    expect(promptRoles(model.calls[0]!.prompt)).toEqual(['user', 'assistant', 'user']);
    await instance.close();
  });
});

describe('a model that answers nothing', () => {
  test('the turn completes and a note stands for the answer: the next request alternates', async () => {
    const { instance, model } = await open([{ text: '' }, { text: 'Now I answer.' }]);
    const empty = await instance.enqueue(userEvent('say something'));
    expect(empty).toMatchObject({ status: 'completed', text: '' });
    const note = instance.conversation().at(-1)!;
    expect(note.data.role).toBe('assistant');
    expect(note.metadata).toEqual({ turnOutcome: 'empty' });
    expect((await instance.enqueue(userEvent('again'))).text).toBe('Now I answer.');
    expect(promptRoles(model.calls[1]!.prompt)).toEqual(['user', 'assistant', 'user']);
    await instance.close();
  });
});

describe('a turn whose process ended before the model answered', () => {
  test('is closed with a note when the instance opens again: the next request has no two user messages in a row', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'gdn-history-'));
    const { databaseFile } = instancePaths({ rootDir: fixture, agentName: 'helper', instanceKey: 'k1', stateDir });
    const db = openInstanceDatabase(databaseFile);
    new ConversationStore(db).append(createMessage({ role: 'user', content: 'killed mid-call' }, { type: 'user' }), {
      turnId: 'turn_killed',
    });
    db.close();

    const { instance, model } = await open([{ text: 'Here now.' }], stateDir);
    const note = instance.conversation().at(-1)!;
    expect(note.data.role).toBe('assistant');
    expect(JSON.stringify(note.data.content)).toContain('stopped (its process ended) before answering');
    expect(note.metadata).toEqual({ turnOutcome: 'interrupted' });
    expect((await instance.enqueue(userEvent('are you there?'))).status).toBe('completed');
    expect(promptRoles(model.calls[0]!.prompt)).toEqual(['user', 'assistant', 'user']);
    await instance.close();

    // Closed once: opening again adds nothing.
    const again = await open([{ text: 'x' }], stateDir);
    expect(again.instance.conversation().map((message) => message.data.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    await again.instance.close();
  });
});

describe('a conversation broken by two writers', () => {
  test('results away from their calls are put back, missing ones aborted, stray ones dropped, once', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'gdn-history-'));
    const { databaseFile } = instancePaths({ rootDir: fixture, agentName: 'helper', instanceKey: 'k1', stateDir });
    const call = (id: string): Message =>
      createMessage(
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'calc__add', input: {} }] },
        { type: 'assistant' },
      );
    const result = (id: string): Message =>
      createMessage(
        {
          role: 'tool',
          content: [toToolResultPart({ toolCallId: id, toolName: 'calc__add', result: { status: 'ok', output: 1 } })],
        },
        { type: 'tool', toolCallId: id, toolName: 'calc__add' },
      );
    const user = (text: string) => createMessage({ role: 'user', content: text }, { type: 'user' });
    // Writer A: user, call a … writer B: user, call b, result b … then A's result a, a stray result, call c unanswered
    // before another user message.
    const broken = [
      user('from A'),
      call('call_a'),
      user('from B'),
      call('call_b'),
      result('call_b'),
      result('call_a'),
      result('call_zzz'),
      call('call_c'),
      user('from A again'),
    ];
    const db = openInstanceDatabase(databaseFile);
    new ConversationStore(db).appendMany(broken);
    db.close();

    const { instance, model, warnings } = await open([{ text: 'ok' }], stateDir);
    expect(warnings.join('\n')).toContain('1 tool result(s) put back');
    expect(warnings.join('\n')).toContain('1 call(s) without a result');
    expect(warnings.join('\n')).toContain('1 stray result(s) dropped');
    expect(instance.conversation().map((message) => message.data.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'user',
      // The last user message had no answer: its turn is closed with the note of an interrupted one.
      'assistant',
    ]);
    expect((await instance.enqueue(userEvent('go on'))).status).toBe('completed');
    expectResultsFollowCalls(model.calls[0]!.prompt as { role: string; content: unknown }[]);
    expect(JSON.stringify(model.calls[0]!.prompt)).toContain('E_TOOL_ABORTED');
    await instance.close();

    // Repaired on disk: the next open finds nothing to repair.
    const again = await open([{ text: 'ok' }], stateDir);
    expect(again.warnings).toEqual([]);
    await again.instance.close();
  });
});

describe('the conversation the model receives', () => {
  test('every step sends the whole conversation as the SDK converts it, each message converted once', async () => {
    const { instance, model } = await open([
      { toolCalls: [{ name: 'calc__add', args: { a: 1, b: 2 } }] },
      { text: 'Three.' },
      { toolCalls: [{ name: 'calc__add', args: { a: 3, b: 4 } }] },
      { text: 'Seven.' },
      { text: 'Bye.' },
      { text: 'Fresh start.' },
    ]);
    for (const input of ['add 1 and 2', 'add 3 and 4', 'thanks']) {
      expect((await instance.enqueue(userEvent(input))).status).toBe('completed');
    }
    expect(model.calls).toHaveLength(5);
    // The last call against the SDK's conversion of the stored conversation (less the answer to it), made afresh.
    const stored = instance.conversation().slice(0, -1);
    const fresh = createScriptedModel([]);
    await streamModelStep({
      model: fresh,
      instructions: 'You are the fixture agent.',
      messages: stored.map((message) => message.data as unknown as ModelMessage),
      tools: {},
      abortSignal: new AbortController().signal,
    });
    expect(model.calls[4]!.prompt).toEqual(fresh.calls[0]!.prompt);
    expect(promptRoles(model.calls[4]!.prompt)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    // The first user message the model received in the first step, the same object in the last: converted once.
    expect(model.calls[4]!.prompt[1]).toBe(model.calls[0]!.prompt[1]!);
    // After a reset nothing of the old conversation is sent.
    instance.reset();
    expect((await instance.enqueue(userEvent('new topic'))).status).toBe('completed');
    expect(promptRoles(model.calls[5]!.prompt)).toEqual(['user']);
    await instance.close();
  });
});
