import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { userEvent } from '@goondan/core';
import { makeBundle, openAgent, type TestBundle } from '../test-agent.ts';
import { redactSecrets } from './index.ts';

const agent = (name: string, config: string) => `
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: ${name} }
spec:
  modelConfig: { modelRef: Model/script }
  tools: [Tool/svc]
  extensions:
    - ref: Extension/logging
      config: ${config}
`;

let bundle: TestBundle;
beforeAll(async () => {
  bundle = await makeBundle({
    'goondan.yaml': [
      'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: script }\nspec: { provider: scripted, model: test }',
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: svc }
spec:
  entry: ./tools.ts
  exports:
    - name: login
      parameters: { type: object, properties: { user: { type: string }, password: { type: string }, note: { type: string } } }
    - name: fail
      parameters: { type: object, properties: {} }`,
      agent('quiet', '{}'),
      agent('chatty', '{ level: debug, args: true, argsMaxChars: 60 }'),
      agent('wrong', '{ level: loud }'),
    ].join('\n---\n'),
    'tools.ts': `export const handlers = {
  login: (_ctx, input) => ({ user: input.user }),
  fail: () => { throw new Error('nope'); },
};`,
  });
});
afterAll(() => bundle.cleanup());

const script = [
  { toolCalls: [{ name: 'svc__login', args: { user: 'ada', password: 'hunter2', note: 'x'.repeat(100) } }] },
  { toolCalls: [{ name: 'svc__fail' }] },
  { text: 'done' },
];

describe('logging', () => {
  test('one info line per tool call (name, status, error code, ms) and per turn (status, steps, tokens)', async () => {
    const { instance, lines } = await openAgent(bundle, 'quiet', script);
    const turn = await instance.enqueue(userEvent('log in'));
    await instance.close();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\[logging\] tool svc__login ok \d+\.\dms$/);
    expect(lines[1]).toMatch(/^\[logging\] tool svc__fail error E_TOOL \d+\.\dms$/);
    const { inputTokens, outputTokens } = turn.usage;
    expect(lines[2]).toMatch(
      new RegExp(
        `^\\[logging\\] turn ${turn.turnId} completed steps=3 tokens=${inputTokens}/${outputTokens} \\d+\\.\\dms$`,
      ),
    );
  });

  test('level debug adds step lines; args: true logs arguments with secrets redacted, cut to argsMaxChars', async () => {
    const { instance, lines } = await openAgent(bundle, 'chatty', script);
    await instance.enqueue(userEvent('log in'));
    await instance.close();
    const steps = lines.filter((line) => line.includes(' step '));
    expect(steps).toHaveLength(3);
    expect(steps[0]).toMatch(
      /^\[logging\] step turn_\S+#0 tools=2 messages=1 toolCalls=1 finish=tool-calls \d+\.\dms$/,
    );
    const login = lines.find((line) => line.includes('tool svc__login'))!;
    expect(login).toContain('args={"user":"ada","password":"[redacted]","note":"xxx');
    expect(login).not.toContain('hunter2');
    expect(login.endsWith('…')).toBe(true);
  });

  test('a wrong level fails the start', async () => {
    await expect(openAgent(bundle, 'wrong', [])).rejects.toMatchObject({ code: 'E_EXTENSION_LOAD' });
  });

  test('redactSecrets reaches into nested objects and arrays', () => {
    expect(redactSecrets({ headers: { Authorization: 'Bearer x' }, list: [{ apiKey: 'k', keep: 1 }] })).toEqual({
      headers: { Authorization: '[redacted]' },
      list: [{ apiKey: '[redacted]', keep: 1 }],
    });
  });
});
