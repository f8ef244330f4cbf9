import { afterAll, describe, expect, test } from 'bun:test';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import { agentBundle, chatBodies, cleanupTempDirs, gdn, serverModel, setModel, textOf } from './helpers.ts';

afterAll(cleanupTempDirs);

describe('gdn chat with piped standard input', () => {
  test('each line is a turn; the reply is printed after the agent name; /exit leaves with 0', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['chat', '--bundle', bundle], { stdin: 'hello\n/exit\nnever sent\n' });
    expect(result.exitCode).toBe(0);
    // The scripted model calls calc__add first: the call is shown in the transcript, then the final reply.
    expect(result.stdout).toMatch(
      /^helper> Adding them up\.\n {2}⚙ calc__add \{"a":2,"b":3\}\n {2}↳ calc__add ok (?:\d+ms|[\d.]+s)\n/,
    );
    expect(result.stdout).toEndWith('helper> The sum is 5.\n');
    // Not a TTY: no banner and no prompts.
    expect(result.stdout).not.toContain('you>');
    expect(result.stdout).not.toContain('Chatting with');
    expect(result.stderr).toBe('');
  });

  test('chat commands are answered without the model: /help, a mistyped one, /tools, /trace, /approvals', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['chat', '--bundle', bundle], {
      stdin: '/help\n/rset\n/tools\nWhat is 2 + 3?\n/trace\n/approvals\n/exit\n',
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const out = result.stdout;
    const at = (text: string) => {
      const index = out.indexOf(text);
      expect(index, `stdout has ${JSON.stringify(text)}:\n${out}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    // In the order typed; the scripted model is called for the one message only.
    const order = [
      at('Chat commands (handled here, the model never sees them):\n  /help '),
      at('Unknown command /rset. Did you mean /reset? /help lists them (E_CLI_UNKNOWN_COMMAND).\n'),
      at('tools in the catalog (Agent/helper)\n'),
      at('helper> Adding them up.\n'),
      at('helper> The sum is 5.\n'),
      at('└─ turn helper  ok'),
      at('No approvals are waiting.\n'),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(out.match(/tool calc__add {2}ok/g)).toHaveLength(1);
  });

  test('end of input leaves like /exit, and blank lines are skipped', async () => {
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'One.' }, { text: 'Two.' }] });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const result = await gdn(['chat', '--bundle', bundle], { stdin: 'first\n\n   \nsecond\n' });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('helper> One.\nhelper> Two.\n');
      expect(chatBodies(server.requests)).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test('/reset clears the conversation: the next request carries no earlier messages', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [{ text: 'Noted: blue.' }, { text: 'Blue.' }, { text: 'I do not know.' }],
    });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const result = await gdn(['chat', '--bundle', bundle, '--instance', 'colours'], {
        stdin:
          'My favourite colour is blue.\nWhat is my favourite colour?\n/reset\nWhat is my favourite colour?\n/exit\n',
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(
        'helper> Noted: blue.\nhelper> Blue.\nConversation cleared.\nhelper> I do not know.\n',
      );
      const bodies = chatBodies(server.requests);
      expect(bodies).toHaveLength(3);
      const texts = (index: number) => bodies[index]!.messages.map((message) => `${message.role}:${textOf(message)}`);
      const system = 'system:You are the CLI test agent. Use tools when asked.';
      expect(texts(1)).toEqual([
        system,
        'user:My favourite colour is blue.',
        'assistant:Noted: blue.',
        'user:What is my favourite colour?',
      ]);
      expect(texts(2)).toEqual([system, 'user:What is my favourite colour?']);
      expect(JSON.stringify(bodies[2])).not.toContain('blue');

      // The reset is stored: a later run of the same instance does not see the old messages either.
      const server2 = await startOpenAICompatibleServer({ responses: [{ text: 'Still no idea.' }] });
      try {
        await setModel(bundle, serverModel(server2.url));
        const run = await gdn(['run', '--bundle', bundle, '--instance', 'colours', '--input', 'Any idea?']);
        expect(run.stdout).toBe('Still no idea.\n');
        const [after] = chatBodies(server2.requests);
        expect(after!.messages.map((message) => `${message.role}:${textOf(message)}`)).toEqual([
          system,
          'user:What is my favourite colour?',
          'assistant:I do not know.',
          'user:Any idea?',
        ]);
      } finally {
        await server2.close();
      }
    } finally {
      await server.close();
    }
  });

  test('a failing model call is reported in the transcript and chat goes on', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        { status: 400, errorBody: { error: { message: 'bad request from test', type: 'invalid_request_error' } } },
        { text: 'Back again.' },
      ],
    });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const result = await gdn(['chat', '--bundle', bundle], { stdin: 'one\ntwo\n/exit\n' });
      expect(result.exitCode).toBe(0);
      // The model is named with its URL and declaration, then comes the provider's own message.
      expect(result.stdout).toMatch(
        /\(E_MODEL_CALL_FAILED: Model 'main' \(provider openai-compatible, http:\/\/127\.0\.0\.1:\d+\/v1, declared at goondan\.yaml:\d+:1\) failed with HTTP 400: bad request from test\)/,
      );
      expect(result.stdout).toEndWith('helper> Back again.\n');
    } finally {
      await server.close();
    }
  });

  test('a stray argument is a usage error, exit 2', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['chat', 'hello', '--bundle', bundle], { stdin: '' });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("gdn chat: unexpected argument 'hello'");
  });
});
