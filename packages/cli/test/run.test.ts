import { afterAll, describe, expect, test } from 'bun:test';
import { ConversationStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import {
  agentBundle,
  chatBodies,
  cleanupTempDirs,
  cliEnv,
  editBundle,
  gdn,
  gdnJson,
  scriptedModel,
  serverModel,
  textOf,
} from './helpers.ts';

afterAll(cleanupTempDirs);

describe('gdn run', () => {
  test('prints the text of every step on stdout and each tool call on stderr, exit 0', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['run', '--bundle', bundle, '--input', 'What is 2 + 3?']);
    expect(result.exitCode).toBe(0);
    // Step 0 says what it is about to do, then calls the tool; step 1 is the reply.
    expect(result.stdout).toBe('Adding them up.\nThe sum is 5.\n');
    const stderr = result.stderr.split('\n');
    expect(stderr[0]).toBe('  ⚙ calc__add {"a":2,"b":3}');
    expect(stderr[1]).toMatch(/^ {2}↳ calc__add ok (?:\d+ms|[\d.]+s)$/);
    expect(result.stdout).not.toContain('⚙');
  });

  test('--json prints the turn: status, text, steps, usage, ids and the tool calls', async () => {
    const bundle = await agentBundle();
    const { result, json } = await gdnJson(['run', '--bundle', bundle, '--input', 'What is 2 + 3?', '--json']);
    expect(result.exitCode).toBe(0);
    // --json keeps stderr free of the tool-call lines, so stdout/stderr can both be parsed.
    expect(result.stderr).toBe('');
    expect(json).toMatchObject({
      agent: 'helper',
      status: 'completed',
      text: 'The sum is 5.',
      texts: ['Adding them up.', 'The sum is 5.'],
      steps: 2,
      reason: 'stop',
      toolCalls: [{ toolName: 'calc__add', status: 'ok' }],
    });
    expect(json.turnId).toMatch(/^turn_/);
    expect(json.eventId).toMatch(/^evt_/);
    expect(json.traceId).toMatch(/^[0-9a-f]{32}$/);
    const usage = json.usage as { inputTokens: number; outputTokens: number };
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    const [toolCall] = json.toolCalls as { durationMs: number; code?: string }[];
    expect(typeof toolCall!.durationMs).toBe('number');
    expect(toolCall!.code).toBeUndefined();
  });

  test('a failing tool call shows its error code on stderr and in --json, the turn still completes', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ toolCalls: [{ name: 'calc__boom', args: { reason: 'testing' } }] }, { text: 'It failed.' }]),
    );
    const text = await gdn(['run', '--bundle', bundle, '--input', 'break it']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toBe('It failed.\n');
    expect(text.stderr).toMatch(/ {2}↳ calc__boom error E_TOOL kaboom: testing (?:\d+ms|[\d.]+s)/);

    const { json } = await gdnJson(['run', '--bundle', bundle, '--input', 'break it', '--json', '--instance', 'j']);
    expect(json.toolCalls).toEqual([
      { toolName: 'calc__boom', status: 'error', code: 'E_TOOL', durationMs: expect.any(Number) },
    ]);
  });

  test('a model error ends the turn with exit 1 and the error code on stderr', async () => {
    const bundle = await agentBundle(scriptedModel([{ error: 'the model fell over' }]));
    const result = await gdn(['run', '--bundle', bundle, '--input', 'hi']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('[error] E_MODEL_CALL_FAILED: the model fell over');
  });

  test('the step cap ends the turn with exit 3 and says so', async () => {
    const add = { toolCalls: [{ name: 'calc__add', args: { a: 1, b: 1 } }] };
    const bundle = await agentBundle(scriptedModel([add, add, add, { text: 'never reached' }]));
    await editBundle(bundle, (text) => text.replace('maxStepsPerTurn: 8', 'maxStepsPerTurn: 2'));
    const result = await gdn(['run', '--bundle', bundle, '--input', 'loop']);
    expect(result.exitCode).toBe(3);
    expect(result.stdout).not.toContain('never reached');
    expect(result.stderr).toContain('[max_steps] Stopped after 2 steps');
    expect(result.stderr.match(/⚙ calc__add/g)).toHaveLength(2);

    const { result: jsonResult, json } = await gdnJson([
      'run',
      '--bundle',
      bundle,
      '--input',
      'loop',
      '--json',
      '--instance',
      'capped',
    ]);
    expect(jsonResult.exitCode).toBe(3);
    expect(json).toMatchObject({ status: 'max_steps', steps: 2 });
  });

  test('--input - reads the message from standard input', async () => {
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'Got it.' }] });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const result = await gdn(['run', '--bundle', bundle, '--input', '-'], { stdin: 'a message from a pipe' });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('Got it.\n');
      const [body] = chatBodies(server.requests);
      expect(body!.messages.at(-1)).toEqual({ role: 'user', content: 'a message from a pipe' });
    } finally {
      await server.close();
    }
  });

  test('the same --instance continues its conversation across runs; another instance starts fresh', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [{ text: 'Nice to meet you, Ada.' }, { text: 'Your name is Ada.' }, { text: 'I do not know.' }],
    });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const first = await gdn(['run', '--bundle', bundle, '--instance', 'ada', '--input', 'My name is Ada.']);
      expect(first.exitCode).toBe(0);
      expect(first.stdout).toBe('Nice to meet you, Ada.\n');
      const second = await gdn(['run', '--bundle', bundle, '--instance', 'ada', '--input', 'What is my name?']);
      expect(second.exitCode).toBe(0);
      expect(second.stdout).toBe('Your name is Ada.\n');
      const other = await gdn(['run', '--bundle', bundle, '--instance', 'bob', '--input', 'What is my name?']);
      expect(other.stdout).toBe('I do not know.\n');

      const bodies = chatBodies(server.requests);
      expect(bodies).toHaveLength(3);
      const roles = (index: number) => bodies[index]!.messages.map((message) => `${message.role}:${textOf(message)}`);
      const system = 'system:You are the CLI test agent. Use tools when asked.';
      expect(roles(1)).toEqual([
        system,
        'user:My name is Ada.',
        'assistant:Nice to meet you, Ada.',
        'user:What is my name?',
      ]);
      expect(roles(2)).toEqual([system, 'user:What is my name?']);
    } finally {
      await server.close();
    }
  });

  test('a missing API key fails before any request, exit 1, naming the variable to set', async () => {
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'should never be asked' }] });
    try {
      const model = [
        'apiVersion: goondan.ai/v1',
        'kind: Model',
        'metadata:',
        '  name: main',
        'spec:',
        '  provider: openai',
        '  model: gpt-test',
        `  baseURL: ${server.url}`,
        '  apiKey: { valueFrom: { env: GDN_TEST_MISSING_KEY } }',
        '',
      ].join('\n');
      const bundle = await agentBundle(model);
      const env = cliEnv();
      delete env.GDN_TEST_MISSING_KEY;
      const result = await gdn(['run', '--bundle', bundle, '--input', 'hello'], { env });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain('E_MODEL_API_KEY_MISSING');
      expect(result.stderr).toContain('GDN_TEST_MISSING_KEY');
      expect(result.stderr).toContain('export GDN_TEST_MISSING_KEY=');
      expect(result.stdout).toBe('');
      expect(server.requests).toHaveLength(0);

      // With the variable set, the same bundle reaches the server and the key is sent.
      const ok = await gdn(['run', '--bundle', bundle, '--input', 'hello'], {
        env: cliEnv({ GDN_TEST_MISSING_KEY: 'sk-test-not-secret' }),
      });
      expect(ok.exitCode).toBe(0);
      expect(ok.stdout).toBe('should never be asked\n');
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.hasAuthorization).toBe(true);
      // The key never shows up in what the CLI prints.
      expect(ok.stdout + ok.stderr).not.toContain('sk-test-not-secret');
    } finally {
      await server.close();
    }
  });

  test('usage mistakes exit 2: no --input, a stray argument, an unknown flag', async () => {
    const bundle = await agentBundle();
    const noInput = await gdn(['run', '--bundle', bundle]);
    expect(noInput.exitCode).toBe(2);
    expect(noInput.stderr).toContain('missing --input TEXT');
    const stray = await gdn(['run', 'hello', '--bundle', bundle]);
    expect(stray.exitCode).toBe(2);
    expect(stray.stderr).toContain("unexpected argument 'hello' (use --input)");
    const flag = await gdn(['run', '--input', 'x', '--turbo', '--bundle', bundle]);
    expect(flag.exitCode).toBe(2);
    // Without a Swarm --grace is not used, yet a bad one is still a mistake, said before the turn runs.
    const grace = await gdn(['run', '--input', 'x', '--grace', 'abc', '--bundle', bundle]);
    expect(grace.exitCode).toBe(2);
    expect(grace.stdout).toBe('');
    expect(grace.stderr).toStartWith("gdn run: --grace must be a whole number of milliseconds, got 'abc'\n");
  });

  test('an empty message exits 2 before anything runs: --input "", blanks only, an empty pipe', async () => {
    const bundle = await agentBundle();
    for (const [args, stdin, says] of [
      [['--input', ''], undefined, '--input is empty: the user message needs some text'],
      [['--input', ' \n\t'], undefined, '--input is empty'],
      [['--input', '-'], '', 'standard input was empty: the user message needs some text'],
    ] as const) {
      const result = await gdn(['run', '--bundle', bundle, ...args], stdin === undefined ? {} : { stdin });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(says);
      expect(result.stderr).toContain('E_CLI_USAGE');
    }
  });

  test('a message over 16 MiB from standard input exits 2 before anything runs', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['run', '--bundle', bundle, '--input', '-'], { stdin: 'x'.repeat(17 * 1024 * 1024) });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('the user message read from standard input went past 16 MiB');
    expect(result.stderr).toContain('E_CLI_USAGE');
    expect(result.stdout).toBe('');
  });

  test('--user names the person the turn acts for: its messages carry it; a blank or huge one is a usage error', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['run', '--bundle', bundle, '--user', 'ada', '--input', 'What is 2 + 3?']);
    expect(result.exitCode).toBe(0);
    const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'default' });
    const db = openInstanceDatabase(databaseFile);
    const users = new ConversationStore(db).load().map((message) => [message.data.role, message.metadata.userId]);
    db.close();
    expect(users).toEqual([
      ['user', 'ada'],
      ['assistant', 'ada'],
      ['tool', undefined],
      ['assistant', 'ada'],
    ]);
    for (const user of ['', ' ', 'x'.repeat(257), 'ada\u001b[2J']) {
      const refused = await gdn(['run', '--bundle', bundle, '--user', user, '--input', 'hi']);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('--user must be a user id of 1 to 256 characters');
    }
  });

  test('an invalid bundle prints its problems and exits 1 without running', async () => {
    const bundle = await agentBundle();
    await editBundle(bundle, (text) => text.replace('- Tool/slow', '- Tool/slw'));
    const result = await gdn(['run', '--bundle', bundle, '--input', 'hi']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('E_REF_UNRESOLVED');
    expect(result.stderr).toContain('Tool/slw');
    expect(result.stdout).toBe('');
  });
});
