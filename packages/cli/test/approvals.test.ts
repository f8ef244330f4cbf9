import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalRecord, AuditRecord } from '@goondan/core';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import {
  agentBundle,
  chatBodies,
  cleanupTempDirs,
  cliEnv,
  gdn,
  gdnJson,
  mainTs,
  makeTempDir,
  serverModel,
} from './helpers.ts';

afterAll(cleanupTempDirs);

/** A gdn process with piped standard input, whose output is read as it arrives (to answer prompts). */
function startInteractive(args: string[]) {
  const proc = Bun.spawn([process.execPath, mainTs, ...args], {
    cwd: tmpdir(),
    env: cliEnv(),
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const output = { stdout: '', stderr: '' };
  const pump = async (stream: ReadableStream<Uint8Array>, key: 'stdout' | 'stderr') => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output[key] += decoder.decode(chunk, { stream: true });
  };
  const done = Promise.all([pump(proc.stdout, 'stdout'), pump(proc.stderr, 'stderr')]);
  return {
    proc,
    output,
    write(text: string) {
      proc.stdin.write(text);
      proc.stdin.flush();
    },
    /** Waits until `key` has `text` `times` times; fails with the output when the process ends first. */
    async waitFor(text: string, key: 'stdout' | 'stderr' = 'stdout', times = 1, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (output[key].split(text).length - 1 < times) {
        if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline)
          throw new Error(`no '${text}' on ${key}:\n${output.stdout}\n--- stderr ---\n${output.stderr}`);
        await Bun.sleep(10);
      }
    },
    async end() {
      proc.stdin.end();
      await proc.exited;
      await done;
      return proc.exitCode;
    },
  };
}

const bashCall = (command: string) => ({ toolCalls: [{ name: 'bash__exec', arguments: JSON.stringify({ command }) }] });

function workspace(bundle: string): string {
  return join(bundle, '.goondan', 'workspaces', 'helper', 'default');
}

describe('approvals from the command line (bash is restricted: ask by default)', () => {
  test('gdn chat shows the call, y runs it, n with a reason denies it; the audit log has both', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        bashCall('echo approved > made.txt'),
        { text: 'Made it.' },
        bashCall('echo no > denied.txt'),
        { text: 'Fine, I did not.' },
      ],
    });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const chat = startInteractive(['chat', '--bundle', bundle]);
      chat.write('make the file\n');
      await chat.waitFor('approval needed');
      expect(chat.output.stdout).toContain('wants to call bash__exec (restricted)');
      expect(chat.output.stdout).toContain('echo approved > made.txt');
      expect(chat.output.stdout).toContain('default restricted: ask');
      expect(existsSync(join(workspace(bundle), 'made.txt'))).toBe(false);
      chat.write('y\n');
      await chat.waitFor('helper> Made it.');
      expect(await readFile(join(workspace(bundle), 'made.txt'), 'utf8')).toBe('approved\n');

      chat.write('another one\n');
      await chat.waitFor('approval needed', 'stdout', 2);
      chat.write('maybe\n');
      await chat.waitFor('Answer y = approve once');
      chat.write('n not in this folder\n');
      await chat.waitFor('helper> Fine, I did not.');
      chat.write('/exit\n');
      expect(await chat.end()).toBe(0);
      expect(chat.output.stdout).toContain('bash__exec approved by user');
      expect(chat.output.stdout).toContain('bash__exec denied by user (not in this folder)');
      expect(existsSync(join(workspace(bundle), 'denied.txt'))).toBe(false);
      // The model read the denial and its reason.
      const last = chatBodies(server.requests).at(-1)!;
      expect(JSON.stringify(last.messages)).toContain('E_APPROVAL_DENIED');
      expect(JSON.stringify(last.messages)).toContain('not in this folder');

      const { json } = await gdnJson<AuditRecord[]>(['audit', '--bundle', bundle, '--json']);
      expect(json.map((entry) => [entry.toolName, entry.category, entry.decision, entry.approval?.outcome])).toEqual([
        ['bash__exec', 'restricted', 'ask', 'approved'],
        ['bash__exec', 'restricted', 'ask', 'denied'],
      ]);
      expect(json[1]!.approval?.reason).toBe('not in this folder');
      expect(json[1]!.errorCode).toBe('E_APPROVAL_DENIED');
    } finally {
      await server.close();
    }
  });

  test('a run killed while it waits keeps the approval; gdn approvals answers it; the next run resumes the turn', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        {
          toolCalls: [
            { name: 'calc__add', arguments: '{"a":20,"b":22}' },
            { name: 'bash__exec', arguments: '{"command":"echo resumed > after-restart.txt"}' },
          ],
        },
        { text: 'Both done.' },
        { text: 'Second turn.' },
      ],
    });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const first = startInteractive(['run', '--bundle', bundle, '--input', 'add and write']);
      await first.waitFor('gdn approvals approve', 'stderr');
      // The prompt can come before calc__add (run beside it) has finished. Its end line is printed after its
      // result is checkpointed, which is what this test claims survives the kill.
      await first.waitFor('↳ calc__add ok', 'stderr');
      const id = /approval needed (apr_\S+)/.exec(first.output.stderr)?.[1];
      expect(id).toBeDefined();
      // The hint names the bundle, so pasted into a terminal in any other directory it answers this approval.
      expect(first.output.stderr).toContain(
        `answer elsewhere: gdn approvals approve ${id} --bundle ${bundle} [--conversation] | gdn approvals deny ${id} --bundle ${bundle} --reason TEXT\n`,
      );
      first.proc.kill('SIGKILL');
      await first.proc.exited;

      const listed = await gdnJson<ApprovalRecord[]>(['approvals', 'list', '--bundle', bundle, '--json']);
      expect(listed.json.map((record) => [record.id, record.toolName, record.status])).toEqual([
        [id!, 'bash__exec', 'pending'],
      ]);
      const unknown = await gdn(['approvals', 'approve', 'apr_nope', '--bundle', bundle]);
      expect(unknown.exitCode).toBe(1);
      expect(unknown.stderr).toContain('E_APPROVAL_NOT_FOUND');
      const approved = await gdn(['approvals', 'approve', id!, '--by', 'ops', '--bundle', bundle]);
      expect(approved.exitCode).toBe(0);
      expect(approved.stdout).toContain('approved by ops');
      const twice = await gdn(['approvals', 'deny', id!, '--bundle', bundle]);
      expect(twice.exitCode).toBe(1);
      expect(twice.stderr).toContain('already approved');

      // The next run finishes the interrupted turn first (the approved call runs now, calc__add is not run
      // again: its result was saved), then runs its own.
      const second = await gdnJson(['run', '--bundle', bundle, '--input', 'next', '--json']);
      expect(second.json).toMatchObject({ status: 'completed', text: 'Second turn.' });
      expect(await readFile(join(workspace(bundle), 'after-restart.txt'), 'utf8')).toBe('resumed\n');
      const bodies = chatBodies(server.requests);
      expect(bodies).toHaveLength(3);
      const toolMessages = bodies[1]!.messages.filter((message) => message.role === 'tool');
      expect(toolMessages.map((message) => message.content)).toEqual([
        expect.stringContaining('42'),
        expect.stringContaining('"exitCode":0'),
      ]);
      const audit = await gdnJson<AuditRecord[]>(['audit', '--bundle', bundle, '--json']);
      expect(audit.json.map((entry) => [entry.toolName, entry.decision, entry.approval?.by ?? null])).toEqual([
        ['calc__add', 'allow', null],
        ['bash__exec', 'ask', 'ops'],
      ]);
    } finally {
      await server.close();
    }
  });

  test('gdn approvals usage mistakes exit 2; an empty bundle lists nothing', async () => {
    const bundle = await agentBundle();
    expect((await gdn(['approvals', 'approve', '--bundle', bundle])).exitCode).toBe(2);
    expect((await gdn(['approvals', 'approve', 'apr_x', '--reason', 'r', '--bundle', bundle])).exitCode).toBe(2);
    expect((await gdn(['approvals', 'frobnicate', '--bundle', bundle])).exitCode).toBe(2);
    const listed = await gdn(['approvals', 'list', '--bundle', bundle]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toBe('No approvals are waiting.\n');
  });

  test('an approval raised by a called agent surfaces in the top-level chat, and holds the request timeout meanwhile', async () => {
    const bundle = await makeTempDir('gdn-swarm-approval-');
    const script = (steps: object[]) => JSON.stringify(steps);
    await writeFile(
      join(bundle, 'goondan.yaml'),
      `apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: team }
spec:
  entryAgent: Agent/coordinator
  agents: [Agent/coordinator, Agent/worker]
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: coordinator }
spec:
  modelConfig: { modelRef: Model/coordinator-model }
  tools:
    - ref: Tool/agents
      config: { allow: [worker] }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: worker }
spec:
  modelConfig: { modelRef: Model/worker-model }
  tools: [Tool/file-system]
  permissions:
    tools: { file-system__write: ask }
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: coordinator-model }
spec:
  provider: scripted
  model: coordinator
  script: ${script([
    { toolCalls: [{ name: 'agents__request', args: { target: 'worker', input: 'write it', timeoutMs: 8000 } }] },
    { text: 'The worker wrote it.' },
  ])}
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: worker-model }
spec:
  provider: scripted
  model: worker
  script: ${script([
    { toolCalls: [{ name: 'file-system__write', args: { path: 'note.txt', content: 'from the worker' } }] },
    { text: 'Written.' },
  ])}
`,
    );
    const chat = startInteractive(['chat', '--bundle', bundle]);
    chat.write('get the worker to write\n');
    await chat.waitFor('approval needed', 'stdout', 1, 20_000);
    expect(chat.output.stdout).toContain('worker/default wants to call file-system__write (sensitive)');
    // Longer than the request's 8 s timeout (which also covers starting the worker's process on a loaded machine):
    // the coordinator's request is held while the worker waits.
    await Bun.sleep(9000);
    chat.write('y\n');
    await chat.waitFor('coordinator> The worker wrote it.', 'stdout', 1, 20_000);
    chat.write('/exit\n');
    expect(await chat.end()).toBe(0);
    expect(chat.output.stdout).not.toContain('E_AGENT_REQUEST_TIMEOUT');
    const written = join(bundle, '.goondan', 'workspaces', 'worker', 'default', 'note.txt');
    expect(await readFile(written, 'utf8')).toBe('from the worker');
    const audit = await gdnJson<AuditRecord[]>(['audit', '--bundle', bundle, '--json']);
    expect(
      audit.json.map((entry) => [entry.agent, entry.toolName, entry.decision, entry.approval?.outcome ?? null]),
    ).toEqual([
      ['worker', 'file-system__write', 'ask', 'approved'],
      ['coordinator', 'agents__request', 'allow', null],
    ]);
  });
});
