import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { userEvent } from '@goondan/core';
import { echoModule, makeBundle, openAgent, type TestBundle, toolResults } from '../test-agent.ts';

const agent = (name: string, extensions: string) => `
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: ${name} }
spec:
  modelConfig: { modelRef: Model/script }
  tools: [Tool/weather, Tool/notes]
  extensions: ${extensions}
`;

let bundle: TestBundle;
beforeAll(async () => {
  bundle = await makeBundle({
    'goondan.yaml': [
      'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: script }\nspec: { provider: scripted, model: test }',
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: weather }
spec:
  entry: ./tools.ts
  exports:
    - name: get
      description: Current weather conditions for a city.
      parameters: { type: object, properties: { city: { type: string, description: City name } }, required: [city] }
    - name: forecast
      description: Weather forecast for the next days.
      parameters: { type: object, properties: { city: { type: string }, days: { type: integer } } }`,
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: notes }
spec:
  entry: ./tools.ts
  exports:
    - name: add
      description: Save a note.
      parameters: { type: object, properties: { text: { type: string } } }`,
      agent('exposed', '[Extension/tool-exposure, Extension/tool-search]'),
      agent('search-only', '[Extension/tool-search]'),
    ].join('\n---\n'),
    'tools.ts': echoModule(['get', 'forecast', 'add']),
  });
});
afterAll(() => bundle.cleanup());

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const instance of opened.splice(0)) await instance.close();
});
let counter = 0;
async function open(agentName: string, steps: Parameters<typeof openAgent>[2]) {
  const result = await openAgent(bundle, agentName, steps, { instanceKey: `s${++counter}` });
  opened.push(result.instance);
  return result;
}

const search = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'tools__search', args }] });

describe('tool-search', () => {
  test('with tool-exposure: tools__search is a control tool; enable: true puts the hits in the next step', async () => {
    const { instance, model } = await open('exposed', [
      search({ query: 'weather forecast', limit: 2, enable: true }),
      { toolCalls: [{ name: 'weather__forecast', args: { city: 'Seoul' } }] },
      { text: 'done' },
    ]);
    await instance.enqueue(userEvent('forecast?'));
    expect(model.calls[0]!.toolNames).toEqual([
      'tools__list',
      'tools__enable',
      'tools__enable_ttl',
      'tools__reset',
      'tools__search',
    ]);
    expect(model.calls[1]!.toolNames.slice(5)).toEqual(['weather__get', 'weather__forecast']);
    const [found, called] = toolResults(instance.conversation()) as { status: string; output: never }[];
    const output = found!.output as Record<string, unknown>;
    expect((output.hits as { name: string }[]).map((hit) => hit.name)).toEqual(['weather__forecast', 'weather__get']);
    expect(output).not.toHaveProperty('enableTools');
    expect(output.exposure).toMatchObject({ enabled: ['weather__forecast', 'weather__get'] });
    expect(called!.status).toBe('ok');
  });

  test('only tools the agent can reach are searched (base Tools it does not list are not)', async () => {
    const { instance } = await open('exposed', [{ text: 'first' }, search({ query: 'http get url' }), { text: 'ok' }]);
    await instance.enqueue(userEvent('one'));
    await instance.enqueue(userEvent('two'));
    const output = toolResults(instance.conversation())[0]!.output as { searched: number; hits: { name: string }[] };
    expect(output.searched).toBe(3);
    expect(output.hits.map((hit) => hit.name)).not.toContain('http-fetch__get');
  });

  test('without tool-exposure: search works, enable says there is nothing to enable', async () => {
    const { instance, model } = await open('search-only', [search({ query: 'note', enable: true }), { text: 'ok' }]);
    await instance.enqueue(userEvent('note'));
    expect(model.calls[0]!.toolNames).toEqual(['weather__get', 'weather__forecast', 'notes__add', 'tools__search']);
    const output = toolResults(instance.conversation())[0]!.output as Record<string, unknown>;
    expect((output.hits as { name: string }[])[0]!.name).toBe('notes__add');
    expect(output.note).toContain('Nothing to enable');
    expect(output).not.toHaveProperty('enableTools');
  });
});
