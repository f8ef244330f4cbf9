import type { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { ApprovalStore } from '../store/approval-store.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { createTempDirs } from '../store/test-support.ts';
import type { JsonValue } from '../types.ts';
import { ApprovalCoordinator, type ApprovalCoordinatorOptions, type ApprovalRequest } from './approvals.ts';
import type { ApprovalRecord } from './permission-types.ts';
import { redactSecrets } from './redact-secrets.ts';

const temp = createTempDirs();
const coordinators: ApprovalCoordinator[] = [];
const databases: Database[] = [];
afterEach(() => {
  for (const coordinator of coordinators.splice(0)) coordinator.close();
  for (const db of databases.splice(0)) db.close();
  temp.cleanup();
});

function openStore(path: string): ApprovalStore {
  const db = openInstanceDatabase(path);
  databases.push(db);
  return new ApprovalStore(db);
}

interface Harness {
  path: string;
  store: ApprovalStore;
  approvals: ApprovalCoordinator;
  requested: ApprovalRecord[];
  resolved: ApprovalRecord[];
}

function coordinatorOn(path: string, options: Partial<ApprovalCoordinatorOptions> = {}): Harness {
  const store = openStore(path);
  const requested: ApprovalRecord[] = [];
  const resolved: ApprovalRecord[] = [];
  const approvals = new ApprovalCoordinator({
    store,
    agent: 'assistant',
    instanceKey: 'default',
    timeoutMs: 60_000,
    pollIntervalMs: 10,
    onRequested: (record) => requested.push(record),
    onResolved: (record) => resolved.push(record),
    ...options,
  });
  coordinators.push(approvals);
  return { path, store, approvals, requested, resolved };
}

function fresh(options: Partial<ApprovalCoordinatorOptions> = {}): Harness {
  return coordinatorOn(join(temp.make(), 'state.db'), options);
}

let callNumber = 0;
function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  callNumber++;
  return {
    toolName: 'bash__exec',
    toolCallId: `call_${callNumber}`,
    category: 'restricted',
    args: { command: 'make deploy' },
    rule: 'default restricted: ask',
    source: { kind: 'user', name: 'cli' },
    turnId: 'turn_1',
    traceId: 'b'.repeat(32),
    ...overrides,
  };
}

/** Resolves once `check` holds (the waiting call has stored its approval and told the observer). */
async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await Bun.sleep(2);
  }
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (thrown) {
    return thrown instanceof GoondanError ? thrown.code : `not a GoondanError: ${String(thrown)}`;
  }
  return undefined;
}

describe('ApprovalCoordinator', () => {
  test('stores a pending approval, tells the observer, and runs the call once a person approves', async () => {
    const { approvals, store, requested, resolved } = fresh();
    const asked = request();
    const waiting = approvals.request(asked);
    await until(() => requested.length === 1);
    const record = requested[0]!;
    expect(record).toMatchObject({
      agent: 'assistant',
      instanceKey: 'default',
      toolCallId: asked.toolCallId,
      toolName: 'bash__exec',
      category: 'restricted',
      rule: 'default restricted: ask',
      source: { kind: 'user', name: 'cli' },
      turnId: 'turn_1',
      traceId: 'b'.repeat(32),
      status: 'pending',
    });
    expect(record.expiresAt - record.createdAt).toBe(60_000);
    expect(approvals.pending().map((pendingRecord) => pendingRecord.id)).toEqual([record.id]);
    const answered = approvals.answer(record.id, { action: 'approve', by: 'alice' });
    expect(answered).toMatchObject({ status: 'approved', scope: 'once', decidedBy: 'alice' });
    expect(await waiting).toEqual({ outcome: 'approved', id: record.id, scope: 'once', by: 'alice', reason: null });
    expect(resolved.map((done) => [done.id, done.status])).toEqual([[record.id, 'approved']]);
    expect(store.get(record.id)?.status).toBe('approved');
    expect(approvals.pending()).toEqual([]);
  });

  test('a denial carries its reason to the waiting call', async () => {
    const { approvals, requested } = fresh();
    const waiting = approvals.request(request());
    await until(() => requested.length === 1);
    approvals.answer(requested[0]!.id, { action: 'deny', reason: 'not on a Friday', by: 'bob' });
    expect(await waiting).toMatchObject({ outcome: 'denied', reason: 'not on a Friday', by: 'bob', scope: null });
  });

  test('answering twice, or an unknown id, is E_APPROVAL_NOT_FOUND', async () => {
    const { approvals, requested } = fresh();
    const waiting = approvals.request(request());
    await until(() => requested.length === 1);
    const id = requested[0]!.id;
    approvals.answer(id, { action: 'approve' });
    await waiting;
    expect(codeOf(() => approvals.answer(id, { action: 'deny' }))).toBe('E_APPROVAL_NOT_FOUND');
    expect(codeOf(() => approvals.answer('apr_nope', { action: 'approve' }))).toBe('E_APPROVAL_NOT_FOUND');
  });

  test('an approval nobody answers in time expires; answering it afterwards is E_APPROVAL_NOT_FOUND', async () => {
    const { approvals, requested, resolved, store } = fresh({ timeoutMs: 30 });
    const resolution = await approvals.request(request());
    expect(resolution.outcome).toBe('expired');
    expect(store.get(requested[0]!.id)?.status).toBe('expired');
    expect(resolved.map((done) => done.status)).toEqual(['expired']);
    expect(codeOf(() => approvals.answer(requested[0]!.id, { action: 'approve' }))).toBe('E_APPROVAL_NOT_FOUND');
  });

  test('an answer that arrives after the expiry time (before the timer fired) expires the approval', () => {
    const { approvals, store } = fresh();
    const now = Date.now();
    store.create({
      id: 'apr_late',
      agent: 'assistant',
      instanceKey: 'default',
      turnId: null,
      traceId: null,
      toolCallId: 'call_late',
      toolName: 'bash__exec',
      category: 'restricted',
      args: {},
      rule: 'default restricted: ask',
      source: { kind: 'user', name: 'cli' },
      status: 'pending',
      scope: null,
      decidedBy: null,
      reason: null,
      createdAt: now - 2000,
      expiresAt: now - 1000,
      decidedAt: null,
    });
    expect(codeOf(() => approvals.answer('apr_late', { action: 'approve' }))).toBe('E_APPROVAL_NOT_FOUND');
    expect(store.get('apr_late')?.status).toBe('expired');
  });

  test('a cancelled turn cancels its waiting approval; an already aborted one is cancelled at once', async () => {
    const { approvals, requested, store } = fresh();
    const controller = new AbortController();
    const waiting = approvals.request(request({ signal: controller.signal }));
    await until(() => requested.length === 1);
    controller.abort('interrupted');
    expect((await waiting).outcome).toBe('cancelled');
    expect(store.get(requested[0]!.id)?.status).toBe('cancelled');

    const aborted = new AbortController();
    aborted.abort('gone');
    const at = await approvals.request(request({ signal: aborted.signal }));
    expect(at.outcome).toBe('cancelled');
    expect(requested).toHaveLength(1);
    expect(store.get(at.id!)?.status).toBe('cancelled');
  });

  test('"approve for this conversation" lets later calls of the tool through at once, without a new record', async () => {
    const { approvals, requested, store } = fresh();
    const waiting = approvals.request(request());
    await until(() => requested.length === 1);
    const id = requested[0]!.id;
    approvals.answer(id, { action: 'approve', scope: 'conversation', by: 'alice' });
    expect((await waiting).scope).toBe('conversation');
    const next = await approvals.request(request());
    expect(next).toEqual({ outcome: 'approved', id, scope: 'conversation', by: 'alice', reason: null });
    expect(requested).toHaveLength(1);
    expect(store.list()).toHaveLength(1);
    const otherTool = approvals.request(request({ toolName: 'bash__script' }));
    await until(() => requested.length === 2);
    approvals.answer(requested[1]!.id, { action: 'deny' });
    expect((await otherTool).outcome).toBe('denied');
  });

  test('a grant covers calls from the source it was given in, of the same category; others are asked again', async () => {
    const { approvals, requested } = fresh();
    const chat = { kind: 'user', name: 'chat' };
    const granted = approvals.request(request({ source: chat }));
    await until(() => requested.length === 1);
    const id = requested[0]!.id;
    approvals.answer(id, { action: 'approve', scope: 'conversation', by: 'alice' });
    await granted;
    // The same source, and the same source with no origin: let through.
    expect((await approvals.request(request({ source: { kind: 'user', name: 'chat' } }))).id).toBe(id);
    // A Telegram message, a schedule, another agent, the chat's own source reached through an agent: asked again.
    const others = [
      { kind: 'user', name: 'telegram' },
      { kind: 'system', name: 'scheduler' },
      { kind: 'agent', name: 'coordinator', origin: chat },
    ];
    for (const [index, source] of others.entries()) {
      const asked = approvals.request(request({ source }));
      await until(() => requested.length === index + 2);
      expect(requested.at(-1)!.source).toEqual(source);
      approvals.answer(requested.at(-1)!.id, { action: 'deny' });
      expect((await asked).outcome).toBe('denied');
    }
    // The tool registered again under the same name with another category (an MCP tool that changed): asked again.
    const recategorised = approvals.request(request({ source: chat, category: 'sensitive' }));
    await until(() => requested.length === 5);
    approvals.answer(requested[4]!.id, { action: 'deny' });
    expect((await recategorised).outcome).toBe('denied');
    // The grant still covers the chat.
    expect((await approvals.request(request({ source: chat }))).outcome).toBe('approved');
  });

  test('a reason and who answered are stored with secrets redacted; a reason of megabytes is cut', async () => {
    const { approvals, requested, store } = fresh({ redact: (value) => redactSecrets(value) });
    const waiting = approvals.request(request());
    await until(() => requested.length === 1);
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const reason = `use GITHUB_TOKEN=${token} instead ${'x'.repeat(3_000_000)}`;
    approvals.answer(requested[0]!.id, { action: 'deny', reason, by: `ops ${token}` });
    const resolution = await waiting;
    const stored = store.get(requested[0]!.id)!;
    for (const text of [stored.reason!, stored.decidedBy!, resolution.reason!, resolution.by!]) {
      expect(text).not.toContain(token);
      expect(text).toContain('[REDACTED]');
    }
    expect(stored.reason!.length).toBeLessThanOrEqual(2000);
    expect(stored.decidedBy!.length).toBeLessThanOrEqual(200);
  });

  test('a database too busy to take an expiry or a cancellation does not leave the call waiting; the end is written later', async () => {
    // Another process holds the write lock past the busy timeout: every close fails until it lets go.
    let busy = true;
    const lockedOut = (store: ApprovalStore) => {
      const close = store.close.bind(store);
      store.close = (id, status, now) => {
        if (busy) throw new Error('database is locked');
        return close(id, status, now);
      };
    };
    const expiring = fresh({ timeoutMs: 30 });
    lockedOut(expiring.store);
    const expired = expiring.approvals.request(request());
    await until(() => expiring.requested.length === 1);
    expect((await expired).outcome).toBe('expired');
    const cancelling = fresh();
    lockedOut(cancelling.store);
    const controller = new AbortController();
    const cancelled = cancelling.approvals.request(request({ signal: controller.signal }));
    await until(() => cancelling.requested.length === 1);
    controller.abort();
    expect((await cancelled).outcome).toBe('cancelled');
    expect(expiring.store.get(expiring.requested[0]!.id)?.status).toBe('pending');
    expect(cancelling.store.get(cancelling.requested[0]!.id)?.status).toBe('pending');
    busy = false;
    await until(() => expiring.store.get(expiring.requested[0]!.id)?.status === 'expired');
    await until(() => cancelling.store.get(cancelling.requested[0]!.id)?.status === 'cancelled');
  });

  test('reset cancels pending approvals (their calls are released) and ends the grants', async () => {
    const { approvals, requested, store } = fresh();
    const granted = approvals.request(request({ toolName: 'http-fetch__post' }));
    await until(() => requested.length === 1);
    approvals.answer(requested[0]!.id, { action: 'approve', scope: 'conversation' });
    await granted;
    const waiting = approvals.request(request());
    await until(() => requested.length === 2);
    approvals.reset();
    expect((await waiting).outcome).toBe('cancelled');
    expect(store.get(requested[1]!.id)?.status).toBe('cancelled');
    expect(store.grant('http-fetch__post')).toBeNull();
    const again = approvals.request(request({ toolName: 'http-fetch__post' }));
    await until(() => requested.length === 3);
    approvals.answer(requested[2]!.id, { action: 'approve' });
    expect((await again).scope).toBe('once');
  });

  test('an answer given by another process on the same database reaches the waiting call by polling', async () => {
    const first = fresh();
    const waiting = first.approvals.request(request());
    await until(() => first.requested.length === 1);
    const second = coordinatorOn(first.path);
    const id = first.requested[0]!.id;
    expect(second.approvals.pending().map((record) => record.id)).toEqual([id]);
    second.approvals.answer(id, { action: 'deny', reason: 'from another terminal', by: 'ops' });
    expect(await waiting).toEqual({
      outcome: 'denied',
      id,
      scope: null,
      by: 'ops',
      reason: 'from another terminal',
    });
    expect(first.resolved.map((record) => record.status)).toEqual(['denied']);
  });

  test('a call already decided (a turn resumed after a restart) gets its stored decision without asking again', async () => {
    const first = fresh();
    const asked = request();
    const waiting = first.approvals.request(asked);
    await until(() => first.requested.length === 1);
    first.approvals.answer(first.requested[0]!.id, { action: 'deny', reason: 'no' });
    await waiting;
    first.approvals.close();
    const restarted = coordinatorOn(first.path);
    const again = await restarted.approvals.request(asked);
    expect(again).toMatchObject({ outcome: 'denied', id: first.requested[0]!.id, reason: 'no' });
    expect(restarted.requested).toEqual([]);
    expect(restarted.store.list()).toHaveLength(1);
  });

  test("after a restart, an approval asked before the message holding the call is an earlier call's: asked anew", async () => {
    // Step 1's call_0 was approved; the process stopped after step 2's message (reusing call_0, same arguments as
    // far as redaction shows) was stored and before its call asked. Resumed, step 2's call is asked about.
    const first = fresh();
    const asked = request({ toolCallId: 'call_0' });
    const waiting = first.approvals.request(asked);
    await until(() => first.requested.length === 1);
    first.approvals.answer(first.requested[0]!.id, { action: 'approve' });
    await waiting;
    const earlier = first.requested[0]!;
    // The call that asked it (its message made no later than the approval) still gets it after a restart.
    const again = coordinatorOn(first.path);
    expect(await again.approvals.request({ ...asked, since: earlier.createdAt })).toMatchObject({
      outcome: 'approved',
      id: earlier.id,
    });
    const restarted = coordinatorOn(first.path);
    const resumed = restarted.approvals.request({ ...asked, since: earlier.createdAt + 1 });
    await until(() => restarted.requested.length === 1);
    expect(restarted.requested[0]!.id).not.toBe(earlier.id);
    restarted.approvals.answer(restarted.requested[0]!.id, { action: 'deny' });
    expect((await resumed).outcome).toBe('denied');
  });

  test('a call still pending when the process stopped waits on the same approval after a restart', async () => {
    const first = fresh();
    const asked = request();
    void first.approvals.request(asked);
    await until(() => first.requested.length === 1);
    const id = first.requested[0]!.id;
    first.approvals.close();
    expect(first.store.get(id)?.status).toBe('pending');
    const restarted = coordinatorOn(first.path);
    const waiting = restarted.approvals.request(asked);
    await until(() => restarted.requested.length === 1);
    expect(restarted.requested[0]!.id).toBe(id);
    restarted.approvals.answer(id, { action: 'approve' });
    expect(await waiting).toMatchObject({ outcome: 'approved', id });
    expect(restarted.store.list()).toHaveLength(1);
  });

  test('the stored arguments pass through redact; the call itself is not changed', async () => {
    const seen: JsonValue[] = [];
    const { approvals, requested, store } = fresh({
      redact: (args) => {
        seen.push(args);
        return { command: '[REDACTED]' };
      },
    });
    const asked = request({ args: { command: 'curl -H "Authorization: Bearer s3cr3t"' } });
    const waiting = approvals.request(asked);
    await until(() => requested.length === 1);
    expect(seen).toEqual([{ command: 'curl -H "Authorization: Bearer s3cr3t"' }]);
    expect(requested[0]!.args).toEqual({ command: '[REDACTED]' });
    expect(store.get(requested[0]!.id)?.args).toEqual({ command: '[REDACTED]' });
    expect(asked.args).toEqual({ command: 'curl -H "Authorization: Bearer s3cr3t"' });
    approvals.answer(requested[0]!.id, { action: 'approve' });
    await waiting;
  });

  test('observers that throw do not break the call', async () => {
    let seen = 0;
    const { approvals, store } = fresh({
      onRequested: () => {
        seen++;
        throw new Error('observer broke');
      },
      onResolved: () => {
        throw new Error('observer broke too');
      },
    });
    const waiting = approvals.request(request());
    await until(() => seen === 1);
    approvals.answer(store.list({ status: 'pending' })[0]!.id, { action: 'approve' });
    expect((await waiting).outcome).toBe('approved');
  });
});
