import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { userEvent } from '@goondan/core';
import { echoModule, makeBundle, openAgent, type TestBundle, toolDocument, toolResults } from '../test-agent.ts';
import { setClock } from './clock.ts';

const agent = (name: string, config: string) => `
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: ${name} }
spec:
  modelConfig: { modelRef: Model/script }
  tools: [Tool/greet, Tool/weather, Tool/file-system, Tool/bash, Tool/notes, Tool/sneaky]
  extensions:
    - ref: Extension/tool-exposure
      config: ${config}
    - Extension/late
`;

const exposureConfig = `{ baseline: [greet__hello, "group:files"], groups: { files: [file-system__read, file-system__list], shell: [bash__exec, bash__script] } }`;

const lateExtension = `
export function register(api) {
  api.tools.register(
    { name: 'late__ping', description: 'Registered by another extension', parameters: { type: 'object', properties: {} } },
    () => 'pong',
  );
  api.tools.register(
    { name: 'late__widen', description: 'Asks tool-exposure to enable tools', parameters: { type: 'object', properties: {} } },
    () => ({ found: 2, enableTools: ['notes__add', 'nope__missing'] }),
  );
}
`;

const BASELINE = [
  'tools__list',
  'tools__enable',
  'tools__enable_ttl',
  'tools__reset',
  'greet__hello',
  'file-system__read',
  'file-system__list',
];

let bundle: TestBundle;
beforeAll(async () => {
  bundle = await makeBundle({
    'goondan.yaml': [
      'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: script }\nspec: { provider: scripted, model: test }',
      toolDocument('greet', ['hello']),
      toolDocument('weather', ['get', 'forecast']),
      toolDocument('notes', ['add']),
      toolDocument('sneaky', ['widen'], './sneaky.ts'),
      'apiVersion: goondan.ai/v1\nkind: Extension\nmetadata: { name: late }\nspec: { entry: ./late.ts }',
      agent('assistant', exposureConfig),
      agent('broken', `{ baseline: ["group:nope"] }`),
      agent('widen', `{ baseline: [sneaky__widen, late__widen] }`),
      agent('limited', `{ baseline: [greet__hello, greet__helo], listLimit: 2 }`),
      `${agent('guarded', exposureConfig).trim()}\n  permissions: { tools: { bash__exec: deny } }`,
    ].join('\n---\n'),
    'tools.ts': echoModule(['hello', 'get', 'forecast', 'add']),
    'late.ts': lateExtension,
    'sneaky.ts': `export const handlers = { widen: () => ({ enableTools: ['weather__get'] }) };`,
  });
});
afterAll(() => bundle.cleanup());

let instanceCounter = 0;
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  setClock();
  for (const instance of opened.splice(0)) await instance.close();
});

/** A fresh instance (its own key, so its own state) unless `instanceKey` reopens an earlier one. */
async function open(steps: Parameters<typeof openAgent>[2], agentName = 'assistant', instanceKey?: string) {
  const key = instanceKey ?? `i${++instanceCounter}`;
  const result = await openAgent(bundle, agentName, steps, { instanceKey: key });
  opened.push(result.instance);
  return { ...result, key };
}

const enable = (...names: string[]) => ({ toolCalls: [{ name: 'tools__enable', args: { names } }] });

describe('tool-exposure (builtin-tools-assistant.md 도구 레지스트리)', () => {
  test('the model sees control tools first, then the baseline in catalog order; nothing else', async () => {
    const { instance, model } = await open([{ text: 'hi' }]);
    await instance.enqueue(userEvent('hello'));
    expect(model.calls[0]!.toolNames).toEqual(BASELINE);
  });

  test('what tools__enable enables is in the catalog at the next step of the same turn, in catalog order', async () => {
    const { instance, model } = await open([
      enable('notes__add', 'weather__forecast'),
      { toolCalls: [{ name: 'notes__add', args: { text: 'x' } }] },
      { text: 'done' },
    ]);
    const turn = await instance.enqueue(userEvent('take a note'));
    expect(turn.status).toBe('completed');
    expect(model.calls[1]!.toolNames).toEqual([...BASELINE, 'weather__forecast', 'notes__add']);
    const [enabled, called] = toolResults(instance.conversation());
    expect(enabled).toMatchObject({ status: 'ok', output: { enabled: ['notes__add', 'weather__forecast'] } });
    expect((enabled!.output as { message: string }).message).toContain('call them now');
    expect(called).toMatchObject({ status: 'ok', output: { tool: 'add' } });
  });

  test('a call to a tool that is not exposed is refused by the guard (E_TOOL_NOT_IN_CATALOG)', async () => {
    const { instance } = await open([{ toolCalls: [{ name: 'weather__get', args: {} }] }, { text: 'ok' }]);
    await instance.enqueue(userEvent('weather?'));
    expect(toolResults(instance.conversation())[0]).toMatchObject({
      status: 'error',
      error: { code: 'E_TOOL_NOT_IN_CATALOG' },
    });
  });

  test('enabling again answers ok: already enabled, call it now', async () => {
    const { instance } = await open([enable('weather__get'), enable('weather__get', 'greet__hello'), { text: 'ok' }]);
    await instance.enqueue(userEvent('weather'));
    const second = toolResults(instance.conversation())[1]!.output as Record<string, unknown>;
    expect(second).toMatchObject({ enabled: [], alreadyEnabled: ['weather__get'], alwaysExposed: ['greet__hello'] });
    expect(second.message).toContain('weather__get is already enabled');
    expect(second.message).toContain('call now');
  });

  test('a group enables its members, as group:NAME or NAME', async () => {
    const { instance, model } = await open([enable('group:shell'), { text: 'a' }, enable('shell'), { text: 'b' }]);
    await instance.enqueue(userEvent('shell'));
    expect(model.calls[1]!.toolNames).toEqual([...BASELINE, 'bash__exec', 'bash__script']);
    await instance.enqueue(userEvent('again'));
    expect(toolResults(instance.conversation())[1]!.output).toMatchObject({
      alreadyEnabled: ['bash__exec', 'bash__script'],
    });
  });

  test('unknown names fail the whole request with E_TOOL_EXPOSURE_UNKNOWN and the closest names', async () => {
    const { instance, model } = await open([
      enable('wether__get', 'notes__add'),
      enable('group:shel', 'http-fetch__get'),
      { text: 'ok' },
    ]);
    await instance.enqueue(userEvent('weather'));
    const [first, second] = toolResults(instance.conversation()) as { error: { code: string; message: string } }[];
    expect(first!.error.code).toBe('E_TOOL_EXPOSURE_UNKNOWN');
    expect(first!.error.message).toContain("'wether__get' (closest: weather__get");
    expect(first!.error.message).toContain('Nothing was enabled');
    expect(model.calls[1]!.toolNames).toEqual(BASELINE); // notes__add was not enabled either
    expect(second!.error.message).toContain("'group:shel' (closest: shell)");
    // A base Tool the bundle has but this Agent does not list is not reachable.
    expect(second!.error.message).toContain("'http-fetch__get' is registered but not offered to this agent");
  });

  test('a tool the permissions deny is not offered: enabling it fails the request, its group leaves it out', async () => {
    const { instance, model } = await open(
      [enable('bash__exec', 'weather__get'), enable('group:shell'), { text: 'ok' }],
      'guarded',
    );
    await instance.enqueue(userEvent('shell'));
    const [first, second] = toolResults(instance.conversation()) as Record<string, unknown>[];
    expect((first as { error: { code: string; message: string } }).error.code).toBe('E_TOOL_EXPOSURE_UNKNOWN');
    expect((first as { error: { message: string } }).error.message).toContain(
      "'bash__exec' is registered but not offered to this agent",
    );
    expect(JSON.stringify(second)).toContain('"unavailable":["bash__exec"]');
    // Never in what the model is shown, whatever was asked.
    for (const call of model.calls) expect(call.toolNames).not.toContain('bash__exec');
  });

  test('tools__list tells baseline, groups, enabled (with expiry) and on-demand tools apart', async () => {
    const { instance } = await open([enable('weather__get'), { toolCalls: [{ name: 'tools__list' }] }, { text: 'ok' }]);
    await instance.enqueue(userEvent('list'));
    const listed = toolResults(instance.conversation())[1]!.output as Record<string, unknown>;
    expect(listed.control).toEqual(BASELINE.slice(0, 4));
    expect(listed.baseline).toEqual([
      { name: 'greet__hello', description: 'greet hello tool' },
      { name: 'file-system__read', description: expect.stringContaining('Read a file') },
      { name: 'file-system__list', description: expect.stringContaining('List a directory') },
    ]);
    expect(listed.groups).toEqual([
      { name: 'files', tools: ['file-system__read', 'file-system__list'], exposed: 'baseline' },
      { name: 'shell', tools: ['bash__exec', 'bash__script'], exposed: 'on demand' },
    ]);
    expect(listed.enabled).toEqual([
      { name: 'weather__get', description: 'weather get tool', expiresAt: expect.any(String), minutesLeft: 60 },
    ]);
    // Tools registered later by another extension are on demand too.
    expect((listed.onDemand as { name: string }[]).map((entry) => entry.name)).toEqual([
      'weather__forecast',
      'file-system__write',
      'file-system__replace',
      'file-system__delete',
      'bash__exec',
      'bash__script',
      'notes__add',
      'sneaky__widen',
      'late__ping',
      'late__widen',
    ]);
  });

  test('tools__list names at most listLimit on-demand tools; a baseline name without a tool is warned about once', async () => {
    const { instance, lines } = await open([{ toolCalls: [{ name: 'tools__list' }] }, { text: 'ok' }], 'limited');
    await instance.enqueue(userEvent('list'));
    const listed = toolResults(instance.conversation())[0]!.output as Record<string, unknown>;
    expect(listed.onDemand).toHaveLength(2);
    expect(listed.onDemandTotal).toBe(13);
    expect(listed.hint).toContain('11 more on-demand tools are not listed here.');
    expect(lines).toEqual([
      "[tool-exposure] baseline tool 'greet__helo' is not in this agent's catalog (yet); check config.baseline.",
    ]);
  });

  test('enabled tools expire after the TTL; tools__enable_ttl sets it and renews what is enabled', async () => {
    let time = Date.UTC(2026, 0, 1);
    setClock(() => time);
    const { instance, model } = await open([
      enable('weather__get'),
      { text: 'a' },
      { text: 'b' },
      enable('notes__add'),
      { toolCalls: [{ name: 'tools__enable_ttl', args: { minutes: 5 } }] },
      { text: 'c' },
      { text: 'd' },
    ]);
    await instance.enqueue(userEvent('enable'));
    time += 59 * 60_000;
    await instance.enqueue(userEvent('still there'));
    expect(model.calls[2]!.toolNames).toContain('weather__get');
    time += 60_000;
    await instance.enqueue(userEvent('expired'));
    expect(model.calls[3]!.toolNames).toEqual(BASELINE);
    const ttl = toolResults(instance.conversation())[2]!.output as { ttlMinutes: number; enabled: unknown[] };
    expect(ttl).toMatchObject({ ttlMinutes: 5, enabled: [{ name: 'notes__add' }] });
    time += 5 * 60_000;
    await instance.enqueue(userEvent('gone'));
    expect(model.calls[6]!.toolNames).toEqual(BASELINE);
  });

  test('tools__reset and a conversation reset (/reset) go back to the baseline', async () => {
    const { instance, model } = await open([
      enable('weather__get'),
      { toolCalls: [{ name: 'tools__reset' }] },
      { text: 'a' },
      enable('notes__add'),
      { text: 'b' },
      { text: 'c' },
    ]);
    await instance.enqueue(userEvent('one'));
    expect(model.calls[1]!.toolNames).toContain('weather__get');
    expect(model.calls[2]!.toolNames).toEqual(BASELINE);
    await instance.enqueue(userEvent('two'));
    expect(model.calls[4]!.toolNames).toContain('notes__add');
    instance.reset();
    await instance.enqueue(userEvent('three'));
    expect(model.calls[5]!.toolNames).toEqual(BASELINE);
  });

  test('what is enabled survives a restart of the instance', async () => {
    const first = await open([enable('weather__get'), { text: 'a' }]);
    await first.instance.enqueue(userEvent('one'));
    await first.instance.close();
    const second = await open([{ text: 'b' }], 'assistant', first.key);
    await second.instance.enqueue(userEvent('two'));
    expect(second.model.calls[0]!.toolNames).toEqual([...BASELINE, 'weather__get']);
  });

  test('an extension tool may ask for tools with enableTools in its output; a config tool may not', async () => {
    const { instance, model } = await open(
      [{ toolCalls: [{ name: 'sneaky__widen' }] }, { toolCalls: [{ name: 'late__widen' }] }, { text: 'ok' }],
      'widen',
    );
    await instance.enqueue(userEvent('widen'));
    const [sneaky, late] = toolResults(instance.conversation());
    expect(sneaky).toEqual({ status: 'ok', output: {} });
    expect(model.calls[1]!.toolNames).not.toContain('weather__get');
    expect(late!.output).toMatchObject({
      found: 2,
      exposure: { enabled: ['notes__add'], unavailable: ['nope__missing'] },
    });
    expect(model.calls[2]!.toolNames.at(-1)).toBe('notes__add');
  });

  test('a baseline naming a group that does not exist fails the start (E_EXTENSION_LOAD)', async () => {
    await expect(open([], 'broken')).rejects.toMatchObject({
      code: 'E_EXTENSION_LOAD',
      message: expect.stringContaining("'group:nope' names no group"),
    });
  });
});
