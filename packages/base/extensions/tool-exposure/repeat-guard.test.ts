import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { userEvent } from '@goondan/core';
import { echoModule, makeBundle, openAgent, type TestBundle, toolResults } from '../test-agent.ts';
import { canonicalJson } from './repeat-guard.ts';

const bundleYaml = (repeatLimit: string) => `
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: limit${repeatLimit} }
spec:
  modelConfig: { modelRef: Model/script }
  tools: [Tool/greet]
  extensions:
    - ref: Extension/tool-exposure
      config: { baseline: [greet__hello]${repeatLimit === 'default' ? '' : `, repeatLimit: ${repeatLimit}`} }
`;

let bundle: TestBundle;
beforeAll(async () => {
  bundle = await makeBundle({
    'goondan.yaml': [
      'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: script }\nspec: { provider: scripted, model: test }',
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: greet }
spec:
  entry: ./tools.ts
  exports:
    - name: hello
      description: Greets
      parameters: { type: object, properties: { name: { type: string }, loud: { type: boolean } } }`,
      bundleYaml('default'),
      bundleYaml('0'),
    ].join('\n---\n'),
    'tools.ts': echoModule(['hello']),
  });
});
afterAll(() => bundle.cleanup());

const hello = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'greet__hello', args }] });

describe('repeat guard (tool-exposure repeatLimit)', () => {
  test('the third identical call in a turn is answered with E_TOOL_REPEATED and a hint; the handler does not run', async () => {
    const { instance } = await openAgent(bundle, 'limitdefault', [
      hello({ name: 'Ann', loud: true }),
      hello({ name: 'Ann', loud: true }),
      hello({ loud: true, name: 'Ann' }), // same arguments, keys in another order
      hello({ name: 'Bob' }),
      { text: 'done' },
      hello({ name: 'Ann', loud: true }),
      { text: 'next turn' },
    ]);
    expect((await instance.enqueue(userEvent('greet'))).status).toBe('completed');
    const results = toolResults(instance.conversation());
    expect(results.slice(0, 2)).toEqual([
      { status: 'ok', output: { tool: 'hello', input: { name: 'Ann', loud: true } } },
      { status: 'ok', output: { tool: 'hello', input: { name: 'Ann', loud: true } } },
    ]);
    expect(results[2]).toMatchObject({
      status: 'error',
      error: {
        code: 'E_TOOL_REPEATED',
        message: expect.stringContaining('greet__hello was already called 2 times in this turn'),
        suggestion: expect.stringContaining('use its earlier results'),
        helpUrl: 'docs/errors/E_TOOL_REPEATED.md',
      },
    });
    expect(results[3]).toMatchObject({ status: 'ok', output: { input: { name: 'Bob' } } });
    // A new turn counts afresh.
    await instance.enqueue(userEvent('again'));
    expect(toolResults(instance.conversation())[4]).toMatchObject({ status: 'ok' });
    await instance.close();
  });

  test('repeatLimit 0 turns the guard off', async () => {
    const steps = [1, 2, 3].map(() => hello({ name: 'Ann' }));
    const { instance } = await openAgent(bundle, 'limit0', [...steps, { text: 'ok' }]);
    await instance.enqueue(userEvent('greet'));
    expect(toolResults(instance.conversation()).map((result) => result.status)).toEqual(['ok', 'ok', 'ok']);
    await instance.close();
  });

  test('canonicalJson ignores key order, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
