import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConversationStore, type Message } from '@goondan/core';
import {
  agentBundle,
  cleanupTempDirs,
  cliEnv,
  editBundle,
  gdn,
  mainTs,
  scriptedModel,
  setModel,
  waitUntil,
} from './helpers.ts';

// The disk of an instance fills up: a tool writes until the file system is full (here a 2 MiB tmpfs mounted on the
// bundle's .goondan, where the workspace lives too). Every command must then say E_STORE_FULL with the file and
// what to do, never print a stack trace; once space is freed the conversation is whole and the next run goes on.

let bundle = '';
let stateDir = '';
let mounted = false;
let mountProblem = '';

beforeAll(async () => {
  bundle = await agentBundle(
    scriptedModel([
      {
        text: 'Filling it.',
        toolCalls: [{ name: 'bash__exec', args: { command: 'cat /dev/zero > fill; echo full' } }],
      },
      { text: 'Filled.' },
    ]),
  );
  // bash__exec is restricted (ask); nobody answers in `gdn run`, so this agent allows it.
  await editBundle(bundle, (text) =>
    text.replace(
      '  tools:\n    - Tool/calc',
      '  permissions:\n    tools:\n      bash__exec: allow\n  tools:\n    - Tool/calc',
    ),
  );
  stateDir = join(bundle, '.goondan');
  mkdirSync(stateDir);
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', stateDir], { stderr: 'pipe' });
  mounted = mount.exitCode === 0;
  if (!mounted) mountProblem = mount.stderr.toString().trim() || `mount exited ${mount.exitCode}`;
});

afterAll(async () => {
  if (mounted) {
    const unmount = Bun.spawnSync(['umount', stateDir]);
    if (unmount.exitCode !== 0) Bun.spawnSync(['umount', '-l', stateDir]);
  }
  await cleanupTempDirs();
});

/** The three lines every coded failure prints, and no stack trace. */
function expectCoded(stderr: string, code: string): void {
  expect(stderr).toContain(code);
  expect(stderr).not.toContain('unexpected failure');
  expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(stderr).not.toContain('SQLiteError');
}

function conversation(file: string): Message[] {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
    return new ConversationStore(db).load();
  } finally {
    db.close();
  }
}

/**
 * Every tool call has its result right after, and no user message is left unanswered before the next one. With
 * `openEnd`, the last message may hold calls with no result: the next open answers them (E_TOOL_ABORTED).
 */
function expectWhole(messages: Message[], openEnd = false): void {
  for (let at = 0; at < messages.length; at++) {
    const message = messages[at]!;
    const next = messages[at + 1];
    if (message.data.role === 'user' && next !== undefined) expect(next.data.role).not.toBe('user');
    const content = message.data.content as unknown;
    if (message.data.role !== 'assistant' || !Array.isArray(content)) continue;
    const parts = content as { type: string; toolCallId?: string }[];
    const calls = parts.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId);
    if (calls.length === 0 || (openEnd && next === undefined)) continue;
    expect(next?.data.role).toBe('tool');
    const results = ((next?.data.content ?? []) as { type: string; toolCallId?: string }[]).map(
      (part) => part.toolCallId,
    );
    expect(results).toEqual(calls);
  }
}

describe('a full disk under the instance', () => {
  test('every command says E_STORE_FULL with the file; after freeing space the conversation is whole and goes on', async () => {
    if (!mounted) {
      console.warn(`skipped: cannot mount a tmpfs to fill (${mountProblem}); run the test as root to try it`);
      return;
    }
    const databaseFile = join(stateDir, 'instances', 'helper', 'default', 'state.db');
    const filler = join(stateDir, 'workspaces', 'helper', 'default', 'fill');

    // The tool fills the disk mid-turn: writing its result is what fails.
    const filled = await gdn(['run', '--bundle', bundle, '--input', 'fill the disk']);
    expect(filled.exitCode).toBe(1);
    expectCoded(filled.stderr, 'E_STORE_FULL');
    expect(filled.stderr).toContain(databaseFile);

    // While full: running or chatting is refused at once, coded, with the path and what to do.
    for (const [args, stdin] of [
      [['run', '--bundle', bundle, '--input', 'again'], undefined],
      [['chat', '--bundle', bundle], 'hello\n'],
    ] as const) {
      const result = await gdn([...args], stdin === undefined ? {} : { stdin });
      expect(result.exitCode).toBe(1);
      expectCoded(result.stderr, 'E_STORE_FULL');
      expect(result.stderr).toContain(join(stateDir, 'instances', 'helper', 'default'));
      expect(result.stderr).toContain('Free space on the disk');
    }
    // Readers need no space: they read what is committed.
    for (const args of [['trace'], ['audit']]) {
      const result = await gdn([...args, '--bundle', bundle]);
      expectCoded(result.stderr, '');
      expect(result.exitCode).toBe(0);
    }

    // Nothing is broken: what was committed reads back whole.
    const whileFull = conversation(databaseFile);
    expect(JSON.stringify(whileFull[0]?.data.content)).toContain('fill the disk');
    expectWhole(whileFull, true);

    // Space freed: the next run closes what the full disk left open and answers.
    rmSync(filler);
    await setModel(bundle, scriptedModel([{ text: 'All good again.' }]));
    const after = await gdn(['run', '--bundle', bundle, '--input', 'are you there?']);
    expectCoded(after.stderr, '');
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toContain('All good again.');

    const messages = conversation(databaseFile);
    expectWhole(messages);
    const texts = messages.map((message) => JSON.stringify(message.data.content));
    expect(texts[0]).toContain('fill the disk');
    expect(texts.at(-2)).toContain('are you there?');
    expect(texts.at(-1)).toContain('All good again.');
    // The call the disk stopped is answered, not left open: the model is told it did not finish.
    expect(messages.map((message) => message.data.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(texts[2]).toContain('E_TOOL_ABORTED');
  });

  test('gdn chat goes on in the same session once space is freed: the call the full disk left open is answered', async () => {
    if (!mounted) {
      console.warn(`skipped: cannot mount a tmpfs to fill (${mountProblem}); run the test as root to try it`);
      return;
    }
    const databaseFile = join(stateDir, 'instances', 'helper', 'default', 'state.db');
    const filler = join(stateDir, 'workspaces', 'helper', 'default', 'fill');
    await setModel(
      bundle,
      scriptedModel([
        {
          text: 'Filling it.',
          toolCalls: [{ name: 'bash__exec', args: { command: 'cat /dev/zero > fill; echo full' } }],
        },
        { text: 'Back in the same chat.' },
      ]),
    );
    const chat = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
      env: cliEnv(),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    let output = '';
    const read = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
    };
    const reading = Promise.all([read(chat.stdout), read(chat.stderr)]);
    try {
      chat.stdin.write('fill the disk\n');
      chat.stdin.flush();
      await waitUntil(() => output.includes('E_STORE_FULL'), 'the turn to fail with E_STORE_FULL', 60_000);
      rmSync(filler);
      chat.stdin.write('are you there?\n');
      chat.stdin.flush();
      // Before the fix: E_MODEL_CALL_FAILED "Tool result is missing for tool call ..." at every later turn.
      await waitUntil(() => output.includes('Back in the same chat.'), 'the next turn to be answered', 60_000);
      chat.stdin.end();
      expect(await chat.exited).toBe(0);
    } finally {
      chat.kill('SIGKILL');
    }
    await reading;
    expect(output).not.toContain('Tool result is missing');
    const messages = conversation(databaseFile);
    expectWhole(messages);
    const texts = messages.map((message) => JSON.stringify(message.data.content));
    expect(texts.at(-1)).toContain('Back in the same chat.');
    expect(texts.some((text) => text.includes("before this tool call's result was stored"))).toBe(true);
  }, 120_000);
});
