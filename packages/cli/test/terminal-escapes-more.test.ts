// What others wrote never drives the terminal, in every command's human output: a model's reply and tool
// arguments, a model server's error, stored grants, orchestrator state and git history of a bundle from someone
// else. Outputs here are pipes with NO_COLOR (cliEnv): nothing of ours is coloured, so any ESC, BEL, C1 code, DEL
// or lone carriage return would be theirs. --json keeps their text exactly.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import { OAuthStore } from '../../core/src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../../core/src/oauth/resolve-oauth-key.ts';
import { freshKey } from '../../core/test/oauth-fixture.ts';
import {
  agentBundle,
  cleanupTempDirs,
  cliEnv,
  editBundle,
  gdn,
  makeTempDir,
  scriptedModel,
  serverModel,
  startGdn,
} from './helpers.ts';

afterAll(cleanupTempDirs);

const ESC = '\u001b';
const titleAndClear = `${ESC}]0;pwned\u0007${ESC}[2J`;
/** 8-bit CSI and DEL: JSON.stringify leaves both as they are. */
const c1 = '\u009b2J\u007f';
const forgedLine = '\r[completed] all good';

/** A control character that is not a newline, a tab or the CR of a CRLF. */
function hostile(text: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  return [...text.matchAll(/(?!\r\n)[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g)].map((match) => match[0]);
}

function expectHarmless(...outputs: string[]): void {
  for (const output of outputs) expect(hostile(output)).toEqual([]);
}

describe("a model's reply and arguments", () => {
  test('gdn run prints the reply without control characters even into a pipe (newlines and tabs kept)', async () => {
    const reply = `first line\n\tindented ${titleAndClear}${forgedLine} ${c1}`;
    const bundle = await agentBundle(
      scriptedModel([
        { text: `thinking ${titleAndClear}`, toolCalls: [{ name: 'calc__add', args: { a: 2, b: 3, note: c1 } }] },
        { text: reply },
      ]),
    );
    const run = await gdn(['run', '--bundle', bundle, '--input', 'go']);
    expect(run.stderr).toContain('calc__add');
    expect(run.stdout).toContain('first line\n\tindented \ufffd]0;pwned\ufffd\ufffd[2J\ufffd[completed] all good');
    expectHarmless(run.stdout, run.stderr);
    const audit = await gdn(['audit', '--bundle', bundle, '--verbose']);
    expect(audit.exitCode).toBe(0);
    expect(audit.stdout).toContain('args: {');
    // The stored arguments keep the model's C1 code and DEL (JSON would print them raw).
    const stored = await gdn(['audit', '--bundle', bundle, '--json']);
    expect(JSON.parse(stored.stdout)[0].args.note).toBe(c1);
    expectHarmless(audit.stdout, audit.stderr);
    const approvals = await gdn(['approvals', 'list', '--all', '--bundle', bundle]);
    expectHarmless(approvals.stdout, approvals.stderr);
    const trace = await gdn(['trace', '--bundle', bundle]);
    expect(trace.exitCode).toBe(0);
    expectHarmless(trace.stdout, trace.stderr);
  });

  test('gdn run --json keeps the reply exactly', async () => {
    const reply = `exact ${titleAndClear}${forgedLine}`;
    const bundle = await agentBundle(scriptedModel([{ text: reply }]));
    const json = await gdn(['run', '--bundle', bundle, '--input', 'go', '--json']);
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout).text).toBe(reply);
  });

  test('gdn chat into a pipe prints the reply without control characters, its lines kept', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: `one\ntwo ${titleAndClear}${forgedLine}` }]));
    const chat = await gdn(['chat', '--bundle', bundle], { stdin: 'hello\n' });
    expect(chat.exitCode).toBe(0);
    expect(chat.stdout).toContain('one\ntwo \ufffd]0;pwned');
    expectHarmless(chat.stdout, chat.stderr);
  });
});

describe('an approval of arguments holding DEL and a C1 code', () => {
  test("gdn run's question, gdn approvals list and the answer line show them as U+FFFD", async () => {
    const bundle = await agentBundle(
      scriptedModel([
        { toolCalls: [{ name: 'slow__wait', args: { ms: 0, note: `${c1}${titleAndClear}` } }] },
        { text: 'done' },
      ]),
    );
    await editBundle(bundle, (text) =>
      text.replace(
        '    maxStepsPerTurn: 8\n',
        '    maxStepsPerTurn: 8\n  permissions:\n    tools: { slow__wait: ask }\n',
      ),
    );
    const run = startGdn(['run', '--bundle', bundle, '--input', 'go']);
    await run.waitForStderr('answer elsewhere');
    const id = /approval needed (\S+)/.exec(run.stderr)?.[1];
    expect(id).toBeDefined();
    const list = await gdn(['approvals', 'list', '--bundle', bundle]);
    expect(list.stdout).toContain('slow__wait');
    const deny = await gdn(['approvals', 'deny', id!, '--reason', 'no', '--bundle', bundle]);
    expect(deny.exitCode).toBe(0);
    const finished = await run.finish();
    expect(finished.stdout).toContain('done');
    expect(finished.stderr).toContain('\ufffd2J\ufffd');
    expectHarmless(list.stdout, list.stderr, deny.stdout, deny.stderr, finished.stdout, finished.stderr);
  });
});

describe("a model server's error", () => {
  test('the retry line of gdn run shows it without escape sequences', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        {
          status: 500,
          errorBody: { error: { message: `overloaded ${titleAndClear}${forgedLine}`, type: 'server_error' } },
          errorHeaders: { 'retry-after-ms': '10' },
        },
        { text: 'Back.' },
      ],
    });
    try {
      const settings = ['apiKey: { value: test-key }', 'params: { maxRetries: 1 }'];
      const bundle = await agentBundle(serverModel(server.url, { settings }));
      const run = await gdn(['run', '--bundle', bundle, '--input', 'hi']);
      expect(run.stderr).toContain('attempt 1 of 2 failed (overloaded \ufffd]0;pwned');
      expect(run.stdout).toContain('Back.');
      expectHarmless(run.stdout, run.stderr);
    } finally {
      await server.close();
    }
  });
});

describe('stored data of others', () => {
  test('gdn auth list shows the scopes a provider granted without escape sequences', async () => {
    const dir = await makeTempDir('gdn-escapes-auth-');
    const bundle = join(dir, 'bundle');
    mkdirSync(join(bundle, '.goondan'), { recursive: true });
    writeFileSync(
      join(bundle, 'goondan.yaml'),
      [
        'apiVersion: goondan.ai/v1',
        'kind: OAuthApp',
        'metadata: { name: mail }',
        'spec:',
        '  issuer: http://127.0.0.1:9/',
        '  clientId: x',
        '  scopes: [read]',
        '  subjectMode: global',
        '  flow: deviceCode',
        '',
      ].join('\n'),
    );
    const key = freshKey();
    const store = new OAuthStore(join(bundle, '.goondan', 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: key }));
    const tokens = { accessToken: 'at', tokenType: 'Bearer', expiresAt: null };
    store.saveGrant({ app: 'OAuthApp/mail', subject: 'global', tokens, scopes: [`read${titleAndClear}${forgedLine}`] });
    store.close();
    const env = cliEnv({ GOONDAN_OAUTH_KEY: key });
    const list = await gdn(['auth', 'list', '--bundle', bundle], { env });
    expect(list.stderr).toBe('');
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain('granted read\ufffd]0;pwned');
    expectHarmless(list.stdout, list.stderr);
    const json = await gdn(['auth', 'list', '--json', '--bundle', bundle], { env });
    expect(json.stdout).toContain('\\u001b]0;pwned');
  });

  test("gdn ps shows an orchestrator's state file without escape sequences", async () => {
    const bundle = await agentBundle();
    const stateDir = join(bundle, '.goondan', 'orchestrator');
    mkdirSync(stateDir, { recursive: true });
    // A live pid (this test's), as a state file in a bundle copied from elsewhere could name.
    const snapshot = {
      pid: process.pid,
      bundleDir: bundle,
      swarm: `team${titleAndClear}`,
      instanceKey: `default${forgedLine}`,
      startedAt: Date.now(),
      updatedAt: Date.now(),
      processes: [
        {
          agent: `helper${titleAndClear}`,
          instanceKey: 'default',
          state: `ready${c1}`,
          pid: null,
          queueDepth: 0,
          turnsServed: 0,
          restarts: 1,
          startedAt: null,
          lastExit: { code: null, signal: `SIGKILL${titleAndClear}`, at: Date.now() },
        },
      ],
    };
    writeFileSync(join(stateDir, `${process.pid}.json`), JSON.stringify(snapshot));
    const ps = await gdn(['ps', '--bundle', bundle]);
    expect(ps.exitCode).toBe(0);
    expect(ps.stdout).toContain('swarm team\ufffd]0;pwned');
    expectHarmless(ps.stdout, ps.stderr);
  });

  test("gdn changes list shows a bundle's git history without escape sequences", async () => {
    const bundle = await agentBundle();
    const git = async (...args: string[]) => {
      const proc = Bun.spawn(
        ['git', '-c', 'user.name=Test Person', '-c', 'user.email=person@example.invalid', ...args],
        { cwd: bundle, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' },
      );
      const err = await new Response(proc.stderr).text();
      if ((await proc.exited) !== 0) throw new Error(`git ${args.join(' ')}: ${err}`);
    };
    await git('init', '-q', '-b', 'main');
    await git('add', 'goondan.yaml', 'tools');
    await git('commit', '-q', '-m', 'start');
    writeFileSync(join(bundle, 'notes.md'), 'x\n');
    await git('add', 'notes.md');
    await git(
      '-c',
      `user.name=Mallory${titleAndClear}`,
      'commit',
      '-q',
      '-m',
      `notes ${titleAndClear}${forgedLine}\n\nGoondan-Changeset: cs-1${titleAndClear}`,
    );
    const list = await gdn(['changes', 'list', '--bundle', bundle]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain('notes \ufffd]0;pwned');
    expectHarmless(list.stdout, list.stderr);
  });
});

/** A bundle whose Agent uses Tool `t` (export `go`) and Extension `x` (module `extension`), maybe in a Swarm. */
async function extensionBundle(extension: string, options: { swarm?: boolean } = {}): Promise<string> {
  const dir = await makeTempDir('gdn-escapes-ext-');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 't.ts'), 'export const handlers = { go: () => ({ ok: 1 }) };\n');
  writeFileSync(join(dir, 'src', 'x.ts'), extension);
  const documents = [
    ...(options.swarm
      ? [
          'apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata:\n  name: solo\nspec:\n  entryAgent: Agent/a\n  agents: [Agent/a]',
        ]
      : []),
    'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata:\n  name: t\nspec:\n  entry: ./src/t.ts\n  exports:\n    - name: go\n      description: Goes.\n      parameters: { type: object }',
    'apiVersion: goondan.ai/v1\nkind: Extension\nmetadata:\n  name: x\nspec:\n  entry: ./src/x.ts',
    'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata:\n  name: a\nspec:\n  modelConfig:\n    modelRef: Model/main\n  tools: [Tool/t]\n  extensions: [Extension/x]',
    scriptedModel([{ toolCalls: [{ name: 't__go', args: {} }] }, { text: 'done' }]).trimEnd(),
  ];
  writeFileSync(join(dir, 'goondan.yaml'), `${documents.join('\n---\n')}\n`);
  return dir;
}

/** `gdn serve` on `dir`, one chat completion to agent `a`, until its stderr holds `until`; then killed. */
async function serveOneCompletion(dir: string, until: string) {
  const server = startGdn(['serve', '--bundle', dir, '--port', '0']);
  try {
    await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
    const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'a', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.text();
    await server.waitForStderr(until, 60_000);
  } finally {
    server.proc.kill('SIGKILL');
  }
  return server.finish();
}

describe("an extension's words", () => {
  test('an error code a toolCall middleware returns reaches no terminal raw: gdn run, gdn trace, gdn audit', async () => {
    const code = JSON.stringify(`E_X${titleAndClear}`);
    const dir = await extensionBundle(
      [
        'export function register(api) {',
        "  api.pipeline.register('toolCall', async () => ({",
        `    status: 'error', error: { code: ${code}, name: 'X', message: 'refused', suggestion: 'none' },`,
        '  }));',
        '}',
      ].join('\n'),
    );
    const run = await gdn(['run', '--bundle', dir, '--input', 'hi']);
    expect(run.stderr).toContain('error E_X\ufffd]0;pwned');
    const trace = await gdn(['trace', '--bundle', dir]);
    expect(trace.stdout).toContain('E_X\ufffd]0;pwned');
    const audit = await gdn(['audit', '--bundle', dir]);
    expect(audit.stdout).toContain('E_X\ufffd]0;pwned');
    expectHarmless(run.stdout, run.stderr, trace.stdout, trace.stderr, audit.stdout, audit.stderr);
  });

  test("an agent process that cannot start is told in gdn chat without the extension's escape sequences", async () => {
    const message = JSON.stringify(`broken${titleAndClear}${forgedLine}`);
    const dir = await extensionBundle(`export function register() { throw new Error(${message}); }\n`, {
      swarm: true,
    });
    const chat = await gdn(['chat', '--bundle', dir], { stdin: 'hi\n' });
    expect(chat.stdout + chat.stderr).toContain('broken\ufffd]0;pwned');
    expectHarmless(chat.stdout, chat.stderr);
  });
  test("gdn serve's log tells an agent process's start failure without the extension's escape sequences", async () => {
    const message = JSON.stringify(`broken${titleAndClear}${forgedLine}`);
    const dir = await extensionBundle(`export function register() { throw new Error(${message}); }\n`, {
      swarm: true,
    });
    const { stdout, stderr } = await serveOneCompletion(dir, '[a/default] Agent a/default could not start');
    expect(stderr).toContain('broken\ufffd]0;pwned');
    expectHarmless(stdout, stderr);
  });
  test("an agent process's log lines reach gdn serve's stderr without the extension's escape sequences", async () => {
    const message = JSON.stringify(`server said ${titleAndClear}${forgedLine}`);
    const dir = await extensionBundle(`export function register(api) { api.logger.warn(${message}); }\n`, {
      swarm: true,
    });
    const { stdout, stderr } = await serveOneCompletion(dir, 'server said');
    expect(stderr).toContain('[a/default] ');
    expect(stderr).toContain('server said \ufffd]0;pwned');
    expectHarmless(stdout, stderr);
  });
  test("an agent process's log lines (a Swarm) reach gdn run's stderr without the extension's escape sequences", async () => {
    const message = JSON.stringify(`server said ${titleAndClear}${forgedLine}`);
    const dir = await extensionBundle(`export function register(api) { api.logger.warn(${message}); }\n`, {
      swarm: true,
    });
    const run = await gdn(['run', '--bundle', dir, '--input', 'hi']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('server said \ufffd]0;pwned');
    expectHarmless(run.stdout, run.stderr);
  });
});
