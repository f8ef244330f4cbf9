// gdn chat on a real terminal: run under script(1), which gives it a pseudo-terminal for stdin, stdout and stderr,
// as a person's shell would. The piped-input behaviour is in chat.test.ts.
import { afterAll, describe, expect, test } from 'bun:test';
import { stripVTControlCharacters } from 'node:util';
import { ConversationStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import { agentBundle, cleanupTempDirs, cliEnv, mainTs, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

/** Starts `gdn ARGS` on a pseudo-terminal; `type` writes to its keyboard, `waitFor` reads what the terminal shows. */
function onTerminal(args: string[]) {
  const command = [process.execPath, mainTs, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const proc = Bun.spawn(['script', '--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    env: cliEnv({ TERM: 'xterm-256color', FORCE_COLOR: '1', NO_COLOR: '', COLUMNS: '100', LINES: '40' }),
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let screen = '';
  const waiters: { text: string | RegExp; resolve: () => void }[] = [];
  const shows = (text: string | RegExp) => (typeof text === 'string' ? screen.includes(text) : text.test(screen));
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      screen += decoder.decode(chunk, { stream: true });
      for (const waiter of waiters.splice(0)) {
        if (shows(waiter.text)) waiter.resolve();
        else waiters.push(waiter);
      }
    }
  })();
  return {
    proc,
    screen: () => screen,
    type(text: string) {
      proc.stdin.write(text);
      proc.stdin.flush();
    },
    waitFor(text: string | RegExp, timeoutMs = 30_000): Promise<void> {
      if (shows(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the terminal never showed ${String(text)}; it shows:\n${screen}`)),
          timeoutMs,
        );
        waiters.push({
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

const plain = (text: string) => stripVTControlCharacters(text).replaceAll('\r', '');
const ESC = String.fromCharCode(27);

describe('gdn chat on a terminal', () => {
  test('prompt, a spinner while the model thinks, the reply rendered as Markdown, slash commands, /exit', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ delayMs: 1500, text: 'Here is **the plan**:\n\n- first step\n- second step\n' }]),
    );
    const chat = onTerminal(['chat', '--bundle', bundle]);
    await chat.waitFor('you>');
    chat.type('/tools\r');
    await chat.waitFor('tools in the catalog');
    chat.type('What is the plan?\r');
    // yocto-spinner draws braille frames on the terminal while the scripted model waits its 1.5 s.
    await chat.waitFor('thinking…');
    // The reply, then the next prompt.
    await chat.waitFor(/second step[\s\S]*you>/);
    chat.type('/exit\r');
    expect(await chat.proc.exited).toBe(0);

    const screen = chat.screen();
    expect(screen).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    // Markdown on a terminal: bold drawn with an escape sequence, not with asterisks.
    expect(screen).not.toContain('**the plan**');
    expect(screen).toMatch(new RegExp(`${ESC}\\[1m(${ESC}\\[[0-9;]*m)*the plan`));
    const text = plain(screen);
    expect(text).toContain('the plan');
    expect(text).toContain('second step');
  });

  test('a line typed before an approval question is a message, not its answer; Ctrl-D during a turn ends the chat after it', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        { toolCalls: [{ name: 'bash__exec', args: { command: 'echo typed-ahead' } }] },
        { text: 'Not run, then.' },
        { text: 'Got your y as a message.' },
      ]),
    );
    const chat = onTerminal(['chat', '--bundle', bundle]);
    await chat.waitFor('you>');
    // The turn starts and asks; the 'y' is typed as the call shows, before the question is on screen.
    chat.type('go\r');
    await chat.waitFor('bash__exec {');
    chat.type('y\r');
    await chat.waitFor('approve>');
    chat.type('n\r');
    await chat.waitFor('Not run, then.');
    await chat.waitFor('Got your y as a message.');
    expect(plain(chat.screen())).not.toContain('approved by user');
    // Ctrl-D while nothing runs: the chat ends on a line of its own, exit 0.
    chat.type('\x04');
    expect(await chat.proc.exited).toBe(0);
    expect(plain(chat.screen())).not.toContain('readline was closed');
  });

  test('Ctrl-D during a turn: the turn finishes and the chat exits 0 (it hung, spinning, on a closed readline)', async () => {
    const bundle = await agentBundle(scriptedModel([{ delayMs: 1500, text: 'The slow reply.' }]));
    const chat = onTerminal(['chat', '--bundle', bundle]);
    await chat.waitFor('you>');
    chat.type('one\r');
    await chat.waitFor('thinking…');
    chat.type('\x04');
    expect(await chat.proc.exited).toBe(0);
    const text = plain(chat.screen());
    expect(text).toContain('The slow reply.');
    expect(text).not.toContain('readline was closed');
  });
});

describe('gdn chat: typing while a turn runs', () => {
  test('the spinner stops, the reply starts on its own line, and the next prompt holds what was typed', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ delayMs: 1500, text: 'The slow reply.' }, { text: 'Second answer.' }]),
    );
    const chat = onTerminal(['chat', '--bundle', bundle]);
    await chat.waitFor('you>');
    chat.type('one\r');
    await chat.waitFor('thinking…');
    chat.type('five');
    await chat.waitFor('The slow reply.');
    // The typed text stays in the prompt that follows the reply; Enter sends it.
    await chat.waitFor(/The slow reply\.[\s\S]*you> [\s\S]*five/);
    chat.type('\r');
    await chat.waitFor('Second answer.');
    chat.type('/exit\r');
    expect(await chat.proc.exited).toBe(0);
    const text = plain(chat.screen());
    // Not run together with the typed text ("fivehelper> …").
    expect(text).not.toMatch(/five\S*helper>/);
  });
});

/** The user messages of the fixture's `helper` agent's default instance, as stored. */
function userTexts(bundle: string): unknown[] {
  const db = openInstanceDatabase(
    instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'default' }).databaseFile,
  );
  try {
    return new ConversationStore(db)
      .load()
      .filter((message) => message.data.role === 'user')
      .map((message) => message.data.content);
  } finally {
    db.close();
  }
}

describe('gdn chat: pasting', () => {
  test('a paste of several lines is one message, sent with the Enter after it; the paste mode is off at the end', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'Read your paste.' }, { text: 'And the next line.' }]));
    const chat = onTerminal(['chat', '--bundle', bundle]);
    await chat.waitFor('you>');
    // The terminal marks a paste with ESC[200~ … ESC[201~ once the chat has asked for it (ESC[?2004h).
    expect(chat.screen()).toContain(`${ESC}[?2004h`);
    chat.type(`${ESC}[200~Traceback:\r  at one()\r  at two()${ESC}[201~`);
    chat.type(' <- why?\r');
    await chat.waitFor('Read your paste.');
    await chat.waitFor(/Read your paste\.[\s\S]*you>/);
    chat.type('typed alone\r');
    await chat.waitFor('And the next line.');
    chat.type('/exit\r');
    expect(await chat.proc.exited).toBe(0);
    expect(chat.screen().lastIndexOf(`${ESC}[?2004l`)).toBeGreaterThan(chat.screen().lastIndexOf(`${ESC}[?2004h`));
    expect(userTexts(bundle)).toEqual(['Traceback:\n  at one()\n  at two() <- why?', 'typed alone']);
  });
  test('a paste of several lines at approve> is no answer, even when its first word is y', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        { toolCalls: [{ name: 'bash__exec', args: { command: 'echo pasted' } }] },
        { text: 'Not run, then.' },
      ]),
    );
    const chat = onTerminal(['chat', '--bundle', bundle]);
    await chat.waitFor('you>');
    chat.type('go\r');
    await chat.waitFor('approve>');
    chat.type(`${ESC}[200~y\rsomething else${ESC}[201~\r`);
    await chat.waitFor(/something else[\s\S]*Answer y/);
    chat.type('n\r');
    await chat.waitFor('Not run, then.');
    chat.type('/exit\r');
    expect(await chat.proc.exited).toBe(0);
    const text = plain(chat.screen());
    expect(text).toContain('denied by user');
    expect(text).not.toContain('approved by user');
  });
});

describe('gdn run on a terminal', () => {
  test('what was typed during the run before an approval question does not answer it', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        { toolCalls: [{ name: 'bash__exec', args: { command: 'echo typed-ahead' } }] },
        { text: 'Refused, fine.' },
      ]),
    );
    const run = onTerminal(['run', '--bundle', bundle, '--input', 'go']);
    // Typed as the call shows, before the question: read and dropped.
    await run.waitFor('bash__exec {');
    run.type('y\r');
    await run.waitFor('approve>');
    run.type('n\r');
    await run.waitFor('Refused, fine.');
    expect(await run.proc.exited).toBe(0);
    const text = plain(run.screen());
    expect(text).toContain('denied by user');
    expect(text).not.toContain('approved by user');
  });
});
