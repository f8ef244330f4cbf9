import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type ApprovalRecord, ApprovalStore, type AuditRecord, openInstanceDatabase } from '@goondan/core';
import { agentBundle, cleanupTempDirs, gdn, gdnJson, scriptedModel, startGdn, waitUntil } from './helpers.ts';

/**
 * Approvals answered as racing processes and hostile users would: the same approval answered at once from two
 * processes (CLI and CLI, HTTP and CLI), an id held by two instances (a copied instance directory), reasons with
 * secrets, escape sequences and megabytes, ids of megabytes.
 */

const started: ReturnType<typeof startGdn>[] = [];
afterAll(async () => {
  for (const proc of started) proc.proc.kill('SIGKILL');
  await Promise.all(started.map((proc) => proc.proc.exited));
  await cleanupTempDirs();
});

/** A bundle whose model makes `count` bash calls (restricted: each asks) in one step, then says 'done'. */
async function manyCallsBundle(count: number): Promise<string> {
  const calls = Array.from({ length: count }, (_, index) => ({
    name: 'bash__exec',
    args: { command: `echo ${index} >> runs.txt` },
  }));
  return agentBundle(scriptedModel([{ toolCalls: calls }, { text: 'done' }]));
}

/** `gdn run` with no terminal: its calls wait for answers from elsewhere. Resolves once all `count` are stored. */
async function runWaiting(bundle: string, count: number) {
  const run = startGdn(['run', '--bundle', bundle, '--input', 'go']);
  started.push(run);
  // The terminal shows one approval at a time; every call of the step has stored its own by then or soon after.
  await run.waitForStderr('approval needed');
  const database = join(bundle, '.goondan', 'instances', 'helper', 'default', 'state.db');
  const pending = () => {
    const db = openInstanceDatabase(database);
    try {
      return new ApprovalStore(db).list({ status: 'pending' });
    } finally {
      db.close();
    }
  };
  await waitUntil(() => pending().length >= count, `${count} pending approvals`);
  return { run, pending: pending() };
}

async function serve(bundle: string) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0', '--instance', 'served']);
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  return { server, url };
}

function post(url: string, body: object = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function workspaceFile(bundle: string, name: string): string {
  return join(bundle, '.goondan', 'workspaces', 'helper', 'default', name);
}

/** One answer per call, whoever gave it: what ran is exactly what was approved, and the audit log agrees. */
async function expectOneDecisionEach(bundle: string, winners: Map<string, 'approved' | 'denied'>) {
  const listed = await gdnJson<ApprovalRecord[]>(['approvals', 'list', '--all', '--bundle', bundle, '--json']);
  const commandOf = new Map(listed.json.map((record) => [record.id, (record.args as { command: string }).command]));
  expect(new Map(listed.json.map((record) => [record.id, record.status]))).toEqual(winners);
  const ran = existsSync(workspaceFile(bundle, 'runs.txt'))
    ? (await readFile(workspaceFile(bundle, 'runs.txt'), 'utf8')).split('\n').filter(Boolean)
    : [];
  const approvedIndexes = [...winners]
    .filter(([, status]) => status === 'approved')
    .map(([id]) => /echo (\d+)/.exec(commandOf.get(id)!)![1]!);
  expect(ran.toSorted()).toEqual(approvedIndexes.toSorted());
  const audit = await gdnJson<AuditRecord[]>(['audit', '--bundle', bundle, '--json', '--limit', '1000']);
  expect(audit.json).toHaveLength(winners.size);
  for (const entry of audit.json) {
    expect(entry.approval?.outcome).toBe(winners.get(entry.approval!.id!)!);
    expect(entry.status).toBe(entry.approval?.outcome === 'approved' ? 'ok' : 'error');
  }
}

describe('racing answers', () => {
  test('approve and deny started together, from two CLI processes and from HTTP and the CLI: one wins, once', async () => {
    const count = 12;
    const bundle = await manyCallsBundle(count);
    const { run, pending } = await runWaiting(bundle, count);
    const { url } = await serve(bundle);
    const winners = new Map<string, 'approved' | 'denied'>();
    for (const [index, record] of pending.entries()) {
      const viaHttp = index % 2 === 1;
      const [approve, deny] = await Promise.all([
        viaHttp
          ? post(`${url}/v1/approvals/${record.id}/approve`, { by: 'http-racer' }).then(async (response) => ({
              won: response.status === 200,
              status: response.status,
              text: await response.text(),
            }))
          : gdn(['approvals', 'approve', record.id, '--by', 'cli-racer', '--bundle', bundle]).then((result) => ({
              won: result.exitCode === 0,
              status: result.exitCode,
              text: result.stderr,
            })),
        gdn(['approvals', 'deny', record.id, '--reason', 'racer', '--bundle', bundle]),
      ]);
      // Exactly one answer is recorded; the other is told so, with a code, and exits 1 (404 over HTTP).
      expect([approve.won, deny.exitCode === 0].filter(Boolean)).toHaveLength(1);
      if (approve.won) {
        expect(deny.exitCode).toBe(1);
        expect(deny.stderr).toContain(`E_APPROVAL_NOT_FOUND Approval '${record.id}' is already approved.`);
        winners.set(record.id, 'approved');
      } else {
        expect(approve.status).toBe(viaHttp ? 404 : 1);
        expect(approve.text).toContain('E_APPROVAL_NOT_FOUND');
        expect(approve.text).toContain('is already denied');
        winners.set(record.id, 'denied');
      }
    }
    const finished = await run.finish();
    expect(finished.exitCode).toBe(0);
    expect(finished.stdout).toContain('done');
    await expectOneDecisionEach(bundle, winners);
  });
});

describe('an id held by two instances (an instance directory copied)', () => {
  test('is answered in neither until the instance is named, from the CLI (exit 1) or HTTP (409)', async () => {
    const bundle = await manyCallsBundle(1);
    const { run, pending } = await runWaiting(bundle, 1);
    run.proc.kill('SIGKILL');
    await run.proc.exited;
    const id = pending[0]!.id;
    const instances = join(bundle, '.goondan', 'instances', 'helper');
    await cp(join(instances, 'default'), join(instances, 'copy'), { recursive: true });
    await rm(join(instances, 'copy', 'writer.json'), { force: true });
    const statuses = async () =>
      (await gdnJson<ApprovalRecord[]>(['approvals', 'list', '--all', '--bundle', bundle, '--json'])).json.map(
        (record) => record.status,
      );
    expect(await statuses()).toEqual(['pending', 'pending']);

    const cli = await gdn(['approvals', 'approve', id, '--bundle', bundle]);
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr).toContain(`E_APPROVAL_AMBIGUOUS Approval '${id}' is in 2 instances`);
    expect(cli.stderr).toContain('helper/copy');
    expect(cli.stderr).toContain('helper/default');
    expect(cli.stderr).toContain('--agent helper --instance');
    const { url } = await serve(bundle);
    const http = await post(`${url}/v1/approvals/${id}/approve`);
    expect(http.status).toBe(409);
    expect(((await http.json()) as { error: { code: string } }).error.code).toBe('E_APPROVAL_AMBIGUOUS');
    expect(await statuses()).toEqual(['pending', 'pending']);

    // Named, each is answered alone. Reasons are stored with secrets redacted and shown printable.
    const token = `ghp_${'Zq9Wx8Yv7U'.repeat(4)}`;
    const denied = await gdn([
      'approvals',
      'deny',
      id,
      '--instance',
      'copy',
      '--reason',
      `\u001b]0;owned\u0007\u001b[2J not with GITHUB_TOKEN=${token}`,
      '--by',
      'z'.repeat(5000),
      '--bundle',
      bundle,
    ]);
    expect(denied.exitCode).toBe(0);
    expect(denied.stdout).not.toContain('\u001b');
    expect(denied.stdout).not.toContain(token);
    const key = `sk-proj-${'Ab12Cd34Ef56'.repeat(4)}`;
    const deniedOverHttp = await post(`${url}/v1/approvals/${id}/deny?agent=helper&instance=default`, {
      reason: `key ${key} ${'x'.repeat(500_000)}`,
      by: `ops ${key}`,
    });
    expect(deniedOverHttp.status).toBe(200);
    const listed = (await gdnJson<ApprovalRecord[]>(['approvals', 'list', '--all', '--bundle', bundle, '--json'])).json;
    expect(listed.map((record) => record.status)).toEqual(['denied', 'denied']);
    const stored = JSON.stringify(listed);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(key);
    for (const record of listed) expect(record.reason!.length).toBeLessThanOrEqual(2000);
    expect(listed.map((record) => record.decidedBy)).toContain('ops [REDACTED]');
    expect(listed.map((record) => record.decidedBy)).toContain('z'.repeat(200));
  });

  test('an id of megabytes, or with escape sequences, is refused and echoed short and printable', async () => {
    const bundle = await agentBundle();
    await gdn(['run', '--bundle', bundle, '--input', 'add']);
    const huge = `apr_${'a'.repeat(120_000)}`;
    const cli = await gdn(['approvals', 'deny', huge, '--bundle', bundle]);
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr).toContain('E_APPROVAL_NOT_FOUND');
    expect(cli.stderr.length).toBeLessThan(1000);
    const nobody = await gdn(['approvals', 'approve', 'apr_x', '--by', ' ', '--bundle', bundle]);
    expect(nobody.exitCode).toBe(2);
    expect(nobody.stderr).toContain('--by needs a name');
    const escaped = await gdn(['approvals', 'approve', '\u001b]0;owned\u0007x', '--bundle', bundle]);
    expect(escaped.exitCode).toBe(1);
    expect(escaped.stderr).not.toContain('\u001b');
    const { url } = await serve(bundle);
    const http = await post(`${url}/v1/approvals/apr_${'b'.repeat(8000)}/deny`);
    expect(http.status).toBe(404);
    expect((await http.text()).length).toBeLessThan(1000);
  });
});

describe('an answer the instance database cannot take', () => {
  test('another process holding its write lock past the busy timeout: E_STORE_OPEN, nothing answered, no stack trace', async () => {
    const bundle = await manyCallsBundle(1);
    const { run, pending } = await runWaiting(bundle, 1);
    run.proc.kill('SIGKILL');
    await run.proc.exited;
    const id = pending[0]!.id;
    const lock = new Database(join(bundle, '.goondan', 'instances', 'helper', 'default', 'state.db'));
    try {
      lock.run('BEGIN IMMEDIATE');
      const refused = await gdn(['approvals', 'approve', id, '--bundle', bundle]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(`E_STORE_OPEN Approval '${id}' of helper/default could not be answered`);
      expect(refused.stderr).not.toContain('unexpected failure');
      expect(refused.stderr).not.toMatch(/^\s+at /m);
      lock.run('ROLLBACK');
    } finally {
      lock.close();
    }
    const listed = await gdnJson<ApprovalRecord[]>(['approvals', 'list', '--bundle', bundle, '--json']);
    expect(listed.json.map((record) => record.status)).toEqual(['pending']);
    expect((await gdn(['approvals', 'approve', id, '--bundle', bundle])).exitCode).toBe(0);
  });
});
