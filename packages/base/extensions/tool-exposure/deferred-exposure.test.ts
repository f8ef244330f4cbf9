import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import type { AgentResource } from '@goondan/core';
import { loadBundle, openAgentInstance, userEvent } from '@goondan/core';
import { type AnthropicTestServer, startAnthropicTestServer } from '@goondan/core/testing';
import { baseBundleDir } from '../../src/index.ts';
import { echoModule, makeBundle, openAgent, type TestBundle, toolDocument, toolResults } from '../test-agent.ts';

let bundle: TestBundle;
let server: AnthropicTestServer;
beforeAll(async () => {
  bundle = await makeBundle({
    'goondan.yaml': [
      'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: script }\nspec: { provider: scripted, model: test }',
      toolDocument('greet', ['hello'], './greet.ts'),
      toolDocument('weather', ['get', 'forecast'], './weather.ts'),
      toolDocument('bash', ['exec'], './bash.ts'),
      `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfig: { modelRef: Model/script }
  tools: [Tool/greet, Tool/weather, Tool/bash]
  extensions:
    - ref: Extension/tool-exposure
      config: { mode: deferred, baseline: [greet__hello] }
`,
    ].join('\n---\n'),
    'greet.ts': echoModule(['hello']),
    'weather.ts': echoModule(['get', 'forecast']),
    'bash.ts': echoModule(['exec']),
  });
  server = await startAnthropicTestServer({
    responses: [
      // Turn 1: the model searches, the provider loads weather__get, the model calls it (one response).
      {
        toolSearch: { query: 'weather', references: ['weather__get'] },
        toolCalls: [{ name: 'weather__get', input: { text: 'Seoul' } }],
      },
      { text: 'Sunny in Seoul.' },
      // Turn 2: weather__get is loaded (found earlier in the conversation); bash__exec was never found.
      {
        toolCalls: [
          { name: 'weather__get', input: { text: 'Busan' } },
          { name: 'bash__exec', input: { text: 'ls' } },
        ],
      },
      { text: 'Done.' },
    ],
  });
});
afterAll(async () => {
  await server?.close();
  await bundle?.cleanup();
});

test('mode deferred on anthropic: the same tools array at every step, tool search first, on-demand tools deferred and guarded', async () => {
  const loaded = await loadBundle({ dir: bundle.dir, libraries: [baseBundleDir] });
  if (!loaded.bundle) throw new Error(JSON.stringify(loaded.problems));
  const instance = await openAgentInstance({
    bundle: loaded.bundle,
    handlers: loaded.handlers,
    agent: loaded.bundle.resources.get('Agent/helper') as AgentResource,
    instanceKey: 'deferred',
    model: createAnthropic({ baseURL: server.url, apiKey: 'test-key' }).languageModel('claude-sonnet-4-5'),
    stateDir: bundle.stateDir,
    logger: { ...console, info() {}, warn() {}, log() {} } as Console,
  });
  try {
    const first = await instance.enqueue(userEvent('weather in Seoul?'));
    expect(first.status).toBe('completed');
    const second = await instance.enqueue(userEvent('Busan, and list files'));
    expect(second.status).toBe('completed');
    const results = toolResults(instance.conversation());
    // The on-demand tool found by the provider's search is called in the first step.
    expect(results[0]).toMatchObject({ status: 'ok', output: { tool: 'get', input: { text: 'Seoul' } } });
    expect(results[1]).toMatchObject({ status: 'ok', output: { tool: 'get', input: { text: 'Busan' } } });
    expect(results[2]).toMatchObject({ status: 'error', error: { code: 'E_TOOL_NOT_IN_CATALOG' } });
  } finally {
    await instance.close();
  }
  const bodies = server.requests.map(
    (request) => request.body as { tools: Record<string, unknown>[]; messages: unknown[] },
  );
  expect(bodies).toHaveLength(4);
  const wire = bodies.map((body) => JSON.stringify(body.tools));
  for (const tools of wire) expect(tools).toBe(wire[0]!);
  expect(bodies[0]!.tools.map((entry) => [entry.name, entry.defer_loading ?? false])).toEqual([
    ['tool_search_tool_bm25', false],
    ['tools__list', false],
    ['tools__enable', false],
    ['tools__enable_ttl', false],
    ['tools__reset', false],
    ['greet__hello', false],
    ['weather__get', true],
    ['weather__forecast', true],
    ['bash__exec', true],
  ]);
  expect(bodies[0]!.tools[0]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
  // The provider's search result goes back to the provider as it came.
  expect(JSON.stringify(bodies[1]!.messages)).toContain('"tool_search_tool_result"');
});

test('mode deferred on a model without deferred loading: the default mode, with one warning', async () => {
  const opened = await openAgent(bundle, 'helper', [{ text: 'one' }, { text: 'two' }], { instanceKey: 'fallback' });
  try {
    await opened.instance.enqueue(userEvent('hi'));
    await opened.instance.enqueue(userEvent('again'));
    const names = opened.model.calls.map((call) => call.toolNames);
    expect(names[0]).toEqual(['tools__list', 'tools__enable', 'tools__enable_ttl', 'tools__reset', 'greet__hello']);
    expect(opened.lines.filter((line) => line.includes("mode 'deferred'"))).toHaveLength(1);
  } finally {
    await opened.instance.close();
  }
});
