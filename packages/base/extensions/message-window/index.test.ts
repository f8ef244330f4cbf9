import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { userEvent } from '@goondan/core';
import { echoModule, makeBundle, openAgent, type TestBundle } from '../test-agent.ts';

let bundle: TestBundle;
beforeAll(async () => {
  bundle = await makeBundle({
    'goondan.yaml': `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: script }
spec: { provider: scripted, model: test }
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: calc }
spec:
  entry: ./tools.ts
  exports:
    - name: add
      parameters: { type: object, properties: { a: { type: integer } } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: windowed }
spec:
  modelConfig: { modelRef: Model/script }
  tools: [Tool/calc]
  extensions:
    - ref: Extension/message-window
      config: { maxMessages: 3 }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: too-small }
spec:
  modelConfig: { modelRef: Model/script }
  extensions:
    - ref: Extension/message-window
      config: { maxMessages: 1 }
`,
    'tools.ts': echoModule(['add']),
  });
});
afterAll(() => bundle.cleanup());

const add = (...ids: string[]) => ({ toolCalls: ids.map((id) => ({ id, name: 'calc__add', args: { a: 1 } })) });

describe('message-window', () => {
  test('the model reads the first user message and the last messages; calls keep their results; nothing is lost', async () => {
    const { instance, model } = await openAgent(bundle, 'windowed', [
      add('c1'),
      { text: 'one' },
      add('c2', 'c3'),
      { text: 'two' },
    ]);
    await instance.enqueue(userEvent('first question'));
    await instance.enqueue(userEvent('second question'));
    const roles = (call: number) => model.calls[call]!.prompt.map((message) => message.role);
    expect(roles(0)).toEqual(['user']);
    expect(roles(1)).toEqual(['user', 'assistant', 'tool']);
    // [first question, one, second question]: the first user message is kept, then the last two.
    expect(roles(2)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(model.calls[2]!.prompt[0])).toContain('first question');
    // Two results of parallel calls: the window grows to keep the call with both its results (the SDK sends
    // consecutive tool messages as one).
    expect(roles(3)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(model.calls[3]!.prompt[2])).toContain('"c2"');
    expect(JSON.stringify(model.calls[3]!.prompt[2])).toContain('"c3"');
    expect(instance.conversation()).toHaveLength(9);
    await instance.close();
  });

  test('maxMessages below 2 fails the start (E_EXTENSION_LOAD)', async () => {
    await expect(openAgent(bundle, 'too-small', [])).rejects.toMatchObject({
      code: 'E_EXTENSION_LOAD',
      message: expect.stringContaining('config.maxMessages must be an integer of at least 2'),
    });
  });
});
