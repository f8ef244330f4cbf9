import { afterAll, describe, expect, test } from 'bun:test';
import type { ApprovalRecord } from '@goondan/core';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import {
  agentBundle,
  chatBodies,
  cleanupTempDirs,
  cliEnv,
  gdn,
  gdnJson,
  hangDeadlineMs,
  mainTs,
  scriptedModel,
  serverModel,
  setModel,
  textOf,
} from './helpers.ts';

afterAll(cleanupTempDirs);

/**
 * `gdn chat` with piped standard input, written by the test as it goes; stdout is read as it arrives. A process
 * still running after the hang deadline is killed (`hung`).
 */
function startChat(args: string[]) {
  const proc = Bun.spawn([process.execPath, mainTs, 'chat', ...args], {
    env: cliEnv(),
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let stdout = '';
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    proc.kill('SIGKILL');
  }, hangDeadlineMs);
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) stdout += decoder.decode(chunk, { stream: true });
  })();
  const stderr = new Response(proc.stderr).text();
  return {
    proc,
    get stdout() {
      return stdout;
    },
    write(text: string) {
      proc.stdin.write(text);
      proc.stdin.flush();
    },
    /** Resolves once stdout has `text`; fails with the output when the process ends first or 30 s pass. */
    async waitFor(text: string) {
      const deadline = Date.now() + 30_000;
      while (!stdout.includes(text)) {
        if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline)
          throw new Error(`no '${text}' on stdout:\n${stdout}`);
        await Bun.sleep(10);
      }
    },
    /** Waits for the process to end (stdin ended first when `endInput`). */
    async exit(options: { endInput?: boolean } = {}) {
      if (options.endInput) proc.stdin.end();
      await proc.exited;
      clearTimeout(timer);
      await reading;
      return { exitCode: proc.exitCode, hung, stdout, stderr: await stderr };
    },
  };
}

const bashCall = (command: string) => ({ toolCalls: [{ name: 'bash__exec', args: { command } }] });

/** The approvals of the bundle still pending, as `gdn approvals list --json` gives them. */
async function pendingApprovals(bundle: string): Promise<ApprovalRecord[]> {
  const { json } = await gdnJson<ApprovalRecord[]>(['approvals', 'list', '--bundle', bundle, '--json']);
  return json.filter((record) => record.status === 'pending');
}

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

  test('a piped line over 16 MiB is not sent: a notice in its place, the lines around it are turns', async () => {
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'One.' }, { text: 'Two.' }] });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const huge = 'z'.repeat(17 * 1024 * 1024);
      const result = await gdn(['chat', '--bundle', bundle], { stdin: `first\r\n${huge}\nsecond` });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(
        'helper> One.\n(a line of more than 16 MiB was not sent: put a large input in a file the agent can read)\nhelper> Two.\n',
      );
      const bodies = chatBodies(server.requests);
      expect(bodies.map((body) => body.messages.at(-1))).toEqual([
        { role: 'user', content: 'first' },
        { role: 'user', content: 'second' },
      ]);
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

  test('commands take no arguments: /reset extra, /tools foo, /trace nonsense, /help me answer their usage', async () => {
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'Noted.' }, { text: 'Still here.' }] });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const result = await gdn(['chat', '--bundle', bundle], {
        stdin:
          'remember this\n/reset extra\n/tools foo\n/trace nonsense\n/help me\n/approvals x\nstill there?\n/exit\n',
      });
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(
        [
          'helper> Noted.',
          "/reset takes no arguments (got 'extra'). Usage: /reset — start the instance's conversation afresh (E_CLI_USAGE).",
          "/tools takes no arguments (got 'foo'). Usage: /tools — the tools the agent sees (its catalog), as `gdn tools list` shows them (E_CLI_USAGE).",
          "/trace takes no arguments (got 'nonsense'). Usage: /trace — the last turn as a tree of steps, model calls and tool calls (E_CLI_USAGE).",
          "/help takes no arguments (got 'me'). Usage: /help — these commands, and how to answer an approval (E_CLI_USAGE).",
          "/approvals takes no arguments (got 'x'). Usage: /approvals — approvals still waiting for an answer (this bundle) (E_CLI_USAGE).",
          'helper> Still here.',
          '',
        ].join('\n'),
      );
      // /reset extra did not reset: the second request still carries the first message.
      const bodies = chatBodies(server.requests);
      expect(bodies).toHaveLength(2);
      expect(bodies[1]!.messages.map(textOf)).toContain('remember this');
    } finally {
      await server.close();
    }
  });
});

describe('gdn chat: approvals left unanswered stay stored, and chat leaves with 0', () => {
  test('input that ends before the approval is asked: the prompt shows, then chat leaves naming it', async () => {
    // The model thinks 1.5 s, so the whole input (one line, then its end) is read before the approval comes.
    const bundle = await agentBundle(
      scriptedModel([{ delayMs: 1500, ...bashCall('echo hi > hi.txt') }, { text: 'Done.' }]),
    );
    const chat = startChat(['--bundle', bundle, '--instance', 'e1']);
    chat.write('make the file\nand this line too\n');
    const result = await chat.exit({ endInput: true });
    expect(result.hung).toBe(false);
    expect(result.exitCode).toBe(0);
    const id = /\? approval needed (apr_\S+) helper\/e1 wants to call bash__exec/.exec(result.stdout)?.[1];
    expect(id, result.stdout).toBeDefined();
    expect(result.stdout).toContain(
      `(1 approval(s) still pending: ${id} (helper/e1 bash__exec); answer with 'gdn approvals approve ID' or in the next 'gdn chat'; the turn goes on then)\n`,
    );
    // The line read after the turn's input was not sent, and chat says so.
    expect(result.stdout).toContain("(1 line(s) after it not sent, the first: 'and this line too')");
    expect((await pendingApprovals(bundle)).map((record) => record.id)).toEqual([id!]);
  });

  test('input that ends after the approval is asked ends the same way', async () => {
    const bundle = await agentBundle(scriptedModel([bashCall('echo hi > hi.txt'), { text: 'Done.' }]));
    const chat = startChat(['--bundle', bundle, '--instance', 'e2']);
    chat.write('make the file\n');
    await chat.waitFor('? approval needed');
    const result = await chat.exit({ endInput: true });
    expect(result.hung).toBe(false);
    expect(result.exitCode).toBe(0);
    const [pending] = await pendingApprovals(bundle);
    expect(result.stdout).toContain(`(1 approval(s) still pending: ${pending!.id} (helper/e2 bash__exec);`);
  });

  test('/exit typed at an approval prompt leaves like end of input: the approval stays stored', async () => {
    const bundle = await agentBundle(scriptedModel([bashCall('echo hi > hi.txt'), { text: 'Done.' }]));
    const chat = startChat(['--bundle', bundle]);
    chat.write('make the file\n');
    await chat.waitFor('? approval needed');
    // /help at the question lists the commands and what the question takes.
    chat.write('/help\n');
    await chat.waitFor('Answer the question above:');
    expect(chat.stdout).toContain('/reset');
    chat.write('/exit\n');
    // Standard input stays open: /exit alone makes chat leave.
    await chat.waitFor('approval(s) still pending');
    const result = await chat.exit();
    expect(result.hung).toBe(false);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('Answer y = approve once');
    expect(await pendingApprovals(bundle)).toHaveLength(1);
  });
});

describe('gdn chat: Ctrl-C', () => {
  test('after a step that made tool calls, the step text is not printed again before (turn cancelled)', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        { text: 'Let me wait.', toolCalls: [{ name: 'slow__wait', args: { ms: 30_000 } }] },
        { text: 'Too late.' },
      ]),
    );
    const chat = startChat(['--bundle', bundle]);
    chat.write('wait a while\n');
    await chat.waitFor('⚙ slow__wait');
    chat.proc.kill('SIGINT');
    await chat.waitFor('(turn cancelled)');
    chat.write('/exit\n');
    const result = await chat.exit();
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /^helper> Let me wait\.\n {2}⚙ slow__wait \{"ms":30000\}\n {2}↳ slow__wait error E_TOOL_ABORTED [^\n]+\n\(turn cancelled\)\n$/,
    );
  });
});
