import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConversationStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import { MAX_CHANGESET_FILE_BYTES } from '../../base/src/changesets/changeset-limits.ts';
import { cleanupTempDirs, cliEnv, gdn, gdnJson, mainTs, makeTempDir, startGdn } from './helpers.ts';

afterEach(cleanupTempDirs);

// Real git, no global configuration: the test's own commits name their author on the command line.
const identity = ['-c', 'user.name=Test Person', '-c', 'user.email=person@example.invalid'];

async function git(cwd: string, ...args: string[]): Promise<string> {
  const proc = Bun.spawn(['git', ...identity, ...args], { cwd, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`git ${args.join(' ')}: ${err}`);
  return out.trim();
}

/** A gate the turn waits at: it returns once the test creates `release` in the agent's workdir. */
const gateTool = `import { existsSync } from 'node:fs';
import { join } from 'node:path';
export const handlers = {
  wait: async (ctx) => {
    await Bun.write(join(ctx.workdir, 'waiting'), 'yes');
    while (!existsSync(join(ctx.workdir, 'release'))) {
      if (ctx.signal.aborted) throw new Error('cancelled');
      await Bun.sleep(20);
    }
    return { released: true };
  },
};
`;

/** One-agent swarm; the builder may commit changesets without asking (the default is to ask a person). */
function bundleYaml(script: object[]): string {
  return `apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: team }
spec:
  entryAgent: Agent/builder
  agents: [Agent/builder]
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: builder }
spec:
  modelConfig: { modelRef: Model/main }
  prompt: { system: You change your own bundle. }
  tools: [Tool/swarm-bundle, Tool/file-system, Tool/gate]
  permissions:
    tools: { swarm-bundle__commit_changeset: allow }
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: gate }
spec:
  entry: ./tools/gate.ts
  exports:
    - name: wait
      description: Waits until the test releases it.
      parameters: { type: object, properties: {}, additionalProperties: false }
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: main }
spec:
  provider: scripted
  model: fixture
  script: ${JSON.stringify(script)}
`;
}

async function gitBundle(script: object[]): Promise<string> {
  const dir = await makeTempDir('gdn-changes-');
  await mkdir(join(dir, 'tools'));
  await writeFile(join(dir, 'tools', 'gate.ts'), gateTool);
  await writeFile(join(dir, 'goondan.yaml'), bundleYaml(script));
  await writeFile(join(dir, '.gitignore'), '.goondan/\n');
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'bundle');
  return dir;
}

async function waitFor(predicate: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

interface PsJson {
  orchestrators: { processes: { agent: string; state: string; pid?: number; restarts: number }[] }[];
}

async function builderProcess(bundle: string) {
  const { json } = await gdnJson<PsJson>(['ps', '--bundle', bundle, '--json']);
  return json.orchestrators[0]?.processes.find((process) => process.agent === 'builder');
}

describe('bundle changesets through gdn run --watch (real git, real agent processes)', () => {
  test('a commit while a turn runs is activated after it: the turn ends on the old revision, the next runs on the new', async () => {
    const nextRevision = bundleYaml([{ text: 'revision two speaking' }]);
    const bundle = await gitBundle([
      { toolCalls: [{ name: 'swarm-bundle__open_changeset', args: { name: 'next' } }] },
      {
        toolCalls: [
          { name: 'file-system__write', args: { path: 'changesets/next/goondan.yaml', content: nextRevision } },
        ],
      },
      {
        toolCalls: [
          { name: 'swarm-bundle__commit_changeset', args: { changeset: 'next', message: 'Speak as revision two' } },
        ],
      },
      { toolCalls: [{ name: 'gate__wait', args: {} }] },
      { text: 'finished on revision one' },
    ]);
    const first = await git(bundle, 'rev-parse', 'HEAD');
    const workdir = join(bundle, '.goondan', 'workspaces', 'builder', 'default');
    // --grace 0: a restart that did not wait for the running turn would kill it at once.
    const run = startGdn(['run', '--bundle', bundle, '--input', 'go', '--watch', '--grace', '0']);
    await run.waitForStderr('[watch] reloaded: restarted builder/default', 60_000);
    await waitFor(() => existsSync(join(workdir, 'waiting')), 'the turn to reach the gate after the commit');
    const committed = await git(bundle, 'rev-parse', 'HEAD');
    expect(committed).not.toBe(first);
    expect(await git(bundle, 'log', '-1', '--format=%B')).toContain('Goondan-Changeset: next');
    // `gdn ps` reads the state file, written up to 100 ms after a change: the process is seen stopping (it waits for
    // its turn) once the file has caught up.
    let old: Awaited<ReturnType<typeof builderProcess>>;
    await waitFor(async () => {
      old = await builderProcess(bundle);
      return old?.state === 'stopping';
    }, 'gdn ps to show the old builder process stopping');
    expect(old!.state).toBe('stopping');
    await writeFile(join(workdir, 'release'), 'go');
    await waitFor(async () => {
      const now = await builderProcess(bundle);
      return now?.state === 'ready' && now.restarts === 1 && now.pid !== old?.pid;
    }, 'the builder to run again on the new revision');
    // Before the test stops the run (--grace 0 then kills whatever is left): nothing was cut short.
    expect(run.stderr).toContain('swarm-bundle__commit_changeset ok');
    expect(run.stderr).toContain('gate__wait ok');
    expect(run.stderr).not.toContain('killed');
    expect(run.stderr).not.toContain('E_AGENT_SHUTTING_DOWN');
    run.proc.kill('SIGTERM');
    const result = await run.finish();
    expect(result.stdout).toBe('finished on revision one\n');
    const next = await gdn(['run', '--bundle', bundle, '--input', 'who are you?']);
    expect(next.stdout).toBe('revision two speaking\n');
    const listed = await gdnJson<{ active: string; activated: { changeset: string; revision: string }[] }>([
      'changes',
      'list',
      '--json',
      '--bundle',
      bundle,
    ]);
    expect(listed.json.active).toBe(committed);
    expect(listed.json.activated).toEqual([expect.objectContaining({ changeset: 'next', revision: committed })]);
  });

  test('gdn changes revert REV undoes an activated revision; a bundle outside git says how to make it one', async () => {
    const bundle = await gitBundle([{ text: 'revision one' }]);
    const first = await git(bundle, 'rev-parse', 'HEAD');
    const run = await gdn(
      ['tools', 'call', '--bundle', bundle, 'swarm-bundle__open_changeset', JSON.stringify({ name: 'two' })],
      {},
    );
    expect(run.exitCode).toBe(0);
    const workdir = join(bundle, '.goondan', 'workspaces', 'builder', 'default');
    await writeFile(join(workdir, 'changesets', 'two', 'goondan.yaml'), bundleYaml([{ text: 'revision two' }]));
    const commit = await gdnJson<{ status: string; output: { status: string; revision: string } }>([
      'tools',
      'call',
      '--bundle',
      bundle,
      'swarm-bundle__commit_changeset',
      JSON.stringify({ changeset: 'two', message: 'two' }),
    ]);
    expect(commit.json.output.status).toBe('ok');
    const reverted = await gdn(['changes', 'revert', commit.json.output.revision, '--bundle', bundle]);
    expect(reverted.exitCode).toBe(0);
    expect(reverted.stdout).toContain('modified  goondan.yaml');
    expect((await gdn(['run', '--bundle', bundle, '--input', 'hi'])).stdout).toBe('revision one\n');
    expect(await git(bundle, 'diff', first, 'HEAD', '--stat')).toBe('');
    // Reverting the first revision would leave no goondan.yaml: refused, with an absolute link to the code's page.
    const refusedRevert = await gdn(['changes', 'revert', first, '--bundle', bundle], {
      env: cliEnv({ GOONDAN_DOCS_URL: 'https://docs.example.test/gdn' }),
    });
    expect(refusedRevert.exitCode).toBe(1);
    expect(refusedRevert.stderr).toStartWith('E_CHANGESET_REJECTED ');
    expect(refusedRevert.stderr).toContain('\n  help: https://docs.example.test/gdn/errors/E_CHANGESET_REJECTED.md\n');

    // HEAD is named by its hash; with a person's edit in the way nothing is left open and the hint says so.
    await git(bundle, 'revert', '--no-edit', 'HEAD');
    const head = await git(bundle, 'rev-parse', 'HEAD');
    await writeFile(join(bundle, 'goondan.yaml'), `${bundleYaml([{ text: 'revision one' }])}# edited by hand\n`);
    const dirty = await gdn(['changes', 'revert', 'HEAD', '--bundle', bundle]);
    expect(dirty.exitCode).toBe(1);
    expect(dirty.stderr).toContain(
      `then run gdn changes revert ${head.slice(0, 12)} again. The changeset was discarded; nothing was changed.`,
    );
    expect(dirty.stderr).not.toContain('still open');
    expect(await git(bundle, 'branch', '--list', 'goondan/*')).toBe('');
    await git(bundle, 'checkout', '--', 'goondan.yaml');
    const named = await gdn(['changes', 'revert', 'HEAD', '--bundle', bundle]);
    expect(named.stdout).toStartWith(`ok reverted ${head.slice(0, 12)}: `);
    // A revision that changed nothing has nothing to revert.
    await git(bundle, 'commit', '-q', '--allow-empty', '-m', 'nothing');
    const empty = await git(bundle, 'rev-parse', 'HEAD');
    const nothing = await gdn(['changes', 'revert', 'HEAD', '--bundle', bundle]);
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stdout).toBe(
      `ok nothing to revert: ${empty.slice(0, 12)} changes nothing in the active bundle; ${empty.slice(0, 12)} stays active\n`,
    );
    expect(await git(bundle, 'rev-parse', 'HEAD')).toBe(empty);

    const plain = await makeTempDir('gdn-changes-plain-');
    await writeFile(join(plain, 'goondan.yaml'), bundleYaml([{ text: 'x' }]));
    const refused = await gdn(['changes', 'list', '--bundle', plain]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('E_CHANGESET_FAILED');
    expect(refused.stderr).toContain('git init');
  });

  test('a changeset over a size limit is refused through gdn (the tool, gdn changes revert): nothing committed, nothing left half-done', async () => {
    const bundle = await gitBundle([{ text: 'revision one' }]);
    const open = await gdn(['tools', 'call', '--bundle', bundle, 'swarm-bundle__open_changeset', '{"name":"big"}']);
    expect(open.exitCode).toBe(0);
    const worktree = join(bundle, '.goondan', 'workspaces', 'builder', 'default', 'changesets', 'big');
    await writeFile(join(worktree, 'huge.bin'), Buffer.alloc(MAX_CHANGESET_FILE_BYTES + 1, 7));
    const tip = await git(worktree, 'rev-parse', 'HEAD');
    const commit = await gdnJson<{ output: Record<string, unknown> }>([
      'tools',
      'call',
      '--bundle',
      bundle,
      'swarm-bundle__commit_changeset',
      JSON.stringify({ changeset: 'big', message: 'big' }),
    ]);
    expect(commit.json.output).toMatchObject({
      status: 'rejected',
      code: 'E_CHANGESET_TOO_LARGE',
      tooLarge: { overFileLimit: 1, largest: [{ path: 'huge.bin', bytes: MAX_CHANGESET_FILE_BYTES + 1 }] },
    });
    expect(await git(worktree, 'rev-parse', 'HEAD')).toBe(tip);
    expect(await git(worktree, 'status', '--porcelain')).toBe('?? huge.bin');
    const listed = await gdnJson<{ open: { changeset: string }[] }>(['changes', 'list', '--bundle', bundle, '--json']);
    expect(listed.json.open).toMatchObject([{ changeset: 'big' }]);

    // A person's revert that would bring back a file over the limit: refused, and no changeset is left behind.
    await writeFile(join(bundle, 'huge.bin'), Buffer.alloc(MAX_CHANGESET_FILE_BYTES + 1, 8));
    await git(bundle, 'add', 'huge.bin');
    await git(bundle, 'commit', '-q', '-m', 'add a huge file');
    await git(bundle, 'rm', '-q', 'huge.bin');
    await git(bundle, 'commit', '-q', '-m', 'remove it');
    const head = await git(bundle, 'rev-parse', 'HEAD');
    const revert = await gdn(['changes', 'revert', 'HEAD', '--bundle', bundle]);
    expect(revert.exitCode).toBe(1);
    expect(revert.stderr).toStartWith('E_CHANGESET_TOO_LARGE ');
    expect(revert.stderr).toContain('huge.bin (10 MiB (10485761 bytes))');
    expect(revert.stderr).toContain(`then run gdn changes revert ${head.slice(0, 12)} again.`);
    expect(revert.stderr).toContain('errors/E_CHANGESET_TOO_LARGE.md');
    expect(await git(bundle, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(bundle, 'branch', '--list', 'goondan/changeset/revert-*')).toBe('');
  });
});

/** `gdn chat` with stdin we write to and stdout/stderr read as they arrive. */
function startChat(bundle: string) {
  const proc = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
    env: cliEnv(),
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const out = { stdout: '', stderr: '' };
  const read = async (stream: ReadableStream<Uint8Array>, key: 'stdout' | 'stderr') => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out[key] += decoder.decode(chunk, { stream: true });
  };
  const done = Promise.all([read(proc.stdout, 'stdout'), read(proc.stderr, 'stderr')]);
  return {
    out,
    say(line: string) {
      proc.stdin.write(`${line}\n`);
      proc.stdin.flush();
    },
    waitFor: (key: 'stdout' | 'stderr', text: string) =>
      waitFor(() => {
        if (proc.exitCode !== null) throw new Error(`gdn chat exited early:\n${out.stdout}\n${out.stderr}`);
        return out[key].includes(text);
      }, `'${text}' on ${key} of gdn chat:\n${out.stdout}\n${out.stderr}`),
    async end() {
      proc.stdin.end();
      await proc.exited;
      await done;
      return proc.exitCode;
    },
  };
}

describe('bundle changesets through gdn chat', () => {
  test('the agent commits a changeset; the next message is answered by the new revision, told what changed', async () => {
    const nextRevision = bundleYaml([{ text: 'revision two speaking' }]);
    const bundle = await gitBundle([
      { toolCalls: [{ name: 'swarm-bundle__open_changeset', args: { name: 'next' } }] },
      {
        toolCalls: [
          { name: 'file-system__write', args: { path: 'changesets/next/goondan.yaml', content: nextRevision } },
        ],
      },
      {
        toolCalls: [
          { name: 'swarm-bundle__commit_changeset', args: { changeset: 'next', message: 'Speak as revision two' } },
        ],
      },
      { text: 'committed on revision one' },
    ]);
    const chat = startChat(bundle);
    chat.say('change yourself');
    await chat.waitFor('stdout', 'committed on revision one');
    const revision = await git(bundle, 'rev-parse', 'HEAD');
    // The activated revision reloads the builder between turns (the chat prints it on stderr).
    await chat.waitFor('stderr', `reloaded: restarted builder/default; revision ${revision.slice(0, 12)}`);
    chat.say('who are you now?');
    await chat.waitFor('stdout', 'revision two speaking');
    expect(await chat.end()).toBe(0);
    expect(chat.out.stderr).not.toContain('E_AGENT_SHUTTING_DOWN');
    // The restarted agent was told, once, before the message of its next turn, and no turn ran for it.
    const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'builder', instanceKey: 'default' });
    const db = openInstanceDatabase(databaseFile);
    const messages = new ConversationStore(db).load();
    db.close();
    const told = messages.filter((message) => message.source.type === 'system');
    expect(told).toHaveLength(1);
    expect(String(told[0]!.data.content)).toContain(
      `revision ${revision.slice(0, 12)} ("Speak as revision two", changeset next)`,
    );
    expect(String(told[0]!.data.content)).toContain('goondan.yaml (modified)');
    const after = messages.slice(messages.indexOf(told[0]!) + 1).map((message) => message.data.role);
    expect(after).toEqual(['user', 'assistant']);
    expect(messages.at(-2)!.data.content).toBe('who are you now?');
  });
});

describe('concurrent commits from separate processes (the activation lock holds across processes)', () => {
  type Commit = { json: { output: { status: string; files?: string[]; revision?: string } } };
  const call = (bundle: string, tool: string, args: object) =>
    gdnJson<{ output: { status: string; files?: string[]; revision?: string } }>([
      'tools',
      'call',
      '--bundle',
      bundle,
      tool,
      JSON.stringify(args),
    ]);
  const changesetDir = (bundle: string, name: string) =>
    join(bundle, '.goondan', 'workspaces', 'builder', 'default', 'changesets', name);

  test('two processes committing edits of the same lines at once: exactly one ok, the other conflict naming the file', async () => {
    const bundle = await gitBundle([{ text: 'revision one' }]);
    for (const name of ['left', 'right']) {
      await call(bundle, 'swarm-bundle__open_changeset', { name });
      await writeFile(join(changesetDir(bundle, name), 'goondan.yaml'), bundleYaml([{ text: `revision ${name}` }]));
    }
    const commits: Commit[] = await Promise.all(
      ['left', 'right'].map((name) =>
        call(bundle, 'swarm-bundle__commit_changeset', { changeset: name, message: name }),
      ),
    );
    const statuses = commits.map((commit) => commit.json.output.status).sort();
    expect(statuses).toEqual(['conflict', 'ok']);
    const lost = commits.find((commit) => commit.json.output.status === 'conflict')!;
    expect(lost.json.output.files).toEqual(['goondan.yaml']);
    const won = commits.find((commit) => commit.json.output.status === 'ok')!;
    expect(await git(bundle, 'rev-parse', 'HEAD')).toBe(won.json.output.revision!);
  });

  test('two processes committing changes to different files at once: both ok, both changes active', async () => {
    const bundle = await gitBundle([{ text: 'revision one' }]);
    for (const name of ['left', 'right']) {
      await call(bundle, 'swarm-bundle__open_changeset', { name });
      await writeFile(join(changesetDir(bundle, name), `${name}.md`), `notes of ${name}\n`);
    }
    const commits: Commit[] = await Promise.all(
      ['left', 'right'].map((name) =>
        call(bundle, 'swarm-bundle__commit_changeset', { changeset: name, message: name }),
      ),
    );
    expect(commits.map((commit) => commit.json.output.status)).toEqual(['ok', 'ok']);
    expect((await git(bundle, 'ls-tree', '--name-only', 'HEAD')).split('\n')).toEqual(
      expect.arrayContaining(['left.md', 'right.md']),
    );
    expect(await git(bundle, 'status', '--porcelain')).toBe('');
  });
});

describe('gdn changes arguments', () => {
  test('gdn changes with wrong arguments is a usage error wherever it runs, before any bundle is looked for', async () => {
    const empty = await makeTempDir();
    for (const [args, said] of [
      [['changes', 'revert', 'a', 'b'], 'revert takes one revision: gdn changes revert REV'],
      [['changes', 'revert'], 'revert takes one revision: gdn changes revert REV'],
      [['changes', 'list', 'extra'], "unexpected argument 'extra'"],
      [['changes', 'list', '--limit', '0'], "--limit must be a positive integer, got '0'"],
    ] as const) {
      const result = await gdn([...args], { cwd: empty });
      expect({ args, exitCode: result.exitCode }).toEqual({ args, exitCode: 2 });
      expect(result.stderr).toContain(said);
      expect(result.stderr).toContain('E_CLI_USAGE');
    }
  });
});
