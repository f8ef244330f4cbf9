import type { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { GoondanError } from '../errors/goondan-error.ts';
import type { ApprovalRecord } from '../permissions/permission-types.ts';
import { ApprovalStore, MAX_APPROVAL_REASON_CHARS } from './approval-store.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
const opened: Database[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  temp.cleanup();
});

function open(path: string): ApprovalStore {
  const db = openInstanceDatabase(path);
  opened.push(db);
  return new ApprovalStore(db);
}

function freshStore(): { store: ApprovalStore; path: string } {
  const path = join(temp.make(), 'state.db');
  return { store: open(path), path };
}

const NOW = 1_700_000_000_000;
let number = 0;
function pending(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  number++;
  return {
    id: `apr_${number}`,
    agent: 'assistant',
    instanceKey: 'default',
    turnId: 'turn_1',
    traceId: 'a'.repeat(32),
    toolCallId: `call_${number}`,
    toolName: 'bash__exec',
    category: 'restricted',
    args: { command: 'ls -la' },
    rule: 'default restricted: ask',
    source: { kind: 'user', name: 'cli' },
    status: 'pending',
    scope: null,
    decidedBy: null,
    reason: null,
    createdAt: NOW,
    expiresAt: NOW + 60_000,
    decidedAt: null,
    ...overrides,
  };
}

describe('ApprovalStore', () => {
  test('stores every field of a pending approval and reads it back by id and by tool call', () => {
    const { store } = freshStore();
    const record = pending({ args: { command: 'rm -rf build', nested: [1, { ok: true }] }, turnId: null });
    store.create(record);
    expect(store.get(record.id)).toEqual(record);
    const match = { toolName: record.toolName, turnId: null };
    expect(store.forToolCall(record.toolCallId, match)).toEqual(record);
    expect(store.get('apr_missing')).toBeNull();
    expect(store.forToolCall('call_missing', match)).toBeNull();
  });

  test('a call id alone never finds an approval: the tool and the turn (or a time) must match too', () => {
    const { store } = freshStore();
    const record = pending({ toolCallId: 'call_1_1', toolName: 'bash__exec', turnId: 'turn_a', createdAt: NOW });
    store.create(record);
    expect(store.forToolCall('call_1_1', { toolName: 'bash__exec', turnId: 'turn_a' })?.id).toBe(record.id);
    // The same id in another turn (providers reuse ids) or for another tool is another call.
    expect(store.forToolCall('call_1_1', { toolName: 'bash__exec', turnId: 'turn_b' })).toBeNull();
    expect(store.forToolCall('call_1_1', { toolName: 'calc__add', turnId: 'turn_a' })).toBeNull();
    expect(store.forToolCall('call_1_1', { toolName: 'bash__exec', since: NOW })?.id).toBe(record.id);
    expect(store.forToolCall('call_1_1', { toolName: 'bash__exec', since: NOW + 1 })).toBeNull();
  });

  test('lists oldest first, filtered by status and limited to the newest', () => {
    const { store } = freshStore();
    const first = pending({ createdAt: NOW });
    const second = pending({ createdAt: NOW + 1 });
    const third = pending({ createdAt: NOW + 2 });
    for (const record of [first, second, third]) store.create(record);
    store.answer(second.id, { action: 'deny' }, NOW + 10);
    expect(store.list().map((record) => record.id)).toEqual([first.id, second.id, third.id]);
    expect(store.list({ status: 'pending' }).map((record) => record.id)).toEqual([first.id, third.id]);
    expect(store.list({ status: 'denied' }).map((record) => record.id)).toEqual([second.id]);
    expect(store.list({ limit: 2 }).map((record) => record.id)).toEqual([second.id, third.id]);
  });

  test('approving records who, when and the scope (once unless told otherwise)', () => {
    const { store } = freshStore();
    const record = pending();
    store.create(record);
    const after = store.answer(record.id, { action: 'approve', by: 'alice' }, NOW + 5);
    expect(after).toMatchObject({ status: 'approved', scope: 'once', decidedBy: 'alice', decidedAt: NOW + 5 });
    expect(store.grant(record.toolName)).toBeNull();
  });

  test('denying keeps the reason, capped, and the default decider is user', () => {
    const { store } = freshStore();
    const record = pending();
    store.create(record);
    const after = store.answer(record.id, { action: 'deny', reason: 'x'.repeat(5000) }, NOW + 5);
    expect(after?.status).toBe('denied');
    expect(after?.scope).toBeNull();
    expect(after?.decidedBy).toBe('user');
    expect(after?.reason).toHaveLength(MAX_APPROVAL_REASON_CHARS);
  });

  test('a second answer changes nothing: the first decision stands', () => {
    const { store } = freshStore();
    const record = pending();
    store.create(record);
    store.answer(record.id, { action: 'deny', reason: 'no', by: 'bob' }, NOW + 5);
    const again = store.answer(record.id, { action: 'approve', scope: 'conversation', by: 'eve' }, NOW + 6);
    expect(again).toMatchObject({ status: 'denied', reason: 'no', decidedBy: 'bob', decidedAt: NOW + 5 });
    expect(store.grant(record.toolName)).toBeNull();
  });

  test('an answer after the expiry time is not recorded; an unknown id answers null', () => {
    const { store } = freshStore();
    const record = pending({ expiresAt: NOW + 100 });
    store.create(record);
    expect(store.answer(record.id, { action: 'approve' }, NOW + 100)).toMatchObject({ status: 'pending' });
    expect(store.answer('apr_missing', { action: 'approve' }, NOW)).toBeNull();
  });

  test('answerPending answers a pending approval, and is E_APPROVAL_NOT_FOUND otherwise', () => {
    const { store } = freshStore();
    const now = Date.now();
    const open = pending({ createdAt: now, expiresAt: now + 60_000 });
    const late = pending({ createdAt: now - 2000, expiresAt: now - 1000 });
    store.create(open);
    store.create(late);
    expect(store.answerPending(open.id, { action: 'approve', by: 'ops' })).toMatchObject({
      status: 'approved',
      decidedBy: 'ops',
    });
    const failure = (id: string) => {
      try {
        store.answerPending(id, { action: 'deny' }, 'assistant/default');
      } catch (thrown) {
        return thrown as GoondanError;
      }
      throw new Error('expected E_APPROVAL_NOT_FOUND');
    };
    expect(failure(open.id)).toMatchObject({
      code: 'E_APPROVAL_NOT_FOUND',
      message: `Approval '${open.id}' is already approved.`,
    });
    expect(failure('apr_missing')).toMatchObject({
      code: 'E_APPROVAL_NOT_FOUND',
      message: "No approval 'apr_missing' in assistant/default.",
    });
    expect(failure(late.id).message).toBe(`Approval '${late.id}' expired before it was answered.`);
    expect(store.get(late.id)?.status).toBe('expired');
  });

  test('close ends a pending approval as expired or cancelled, and never overrides an answer', () => {
    const { store } = freshStore();
    const expiring = pending();
    const cancelling = pending();
    const answered = pending();
    for (const record of [expiring, cancelling, answered]) store.create(record);
    store.answer(answered.id, { action: 'approve' }, NOW + 1);
    expect(store.close(expiring.id, 'expired', NOW + 2)).toMatchObject({ status: 'expired', decidedAt: NOW + 2 });
    expect(store.close(cancelling.id, 'cancelled', NOW + 3)).toMatchObject({ status: 'cancelled' });
    expect(store.close(answered.id, 'cancelled', NOW + 4)).toMatchObject({ status: 'approved', decidedAt: NOW + 1 });
    expect(store.close('apr_missing', 'expired')).toBeNull();
  });

  test('statuses reads several approvals at once and leaves unknown ids out', () => {
    const { store } = freshStore();
    const first = pending();
    const second = pending();
    store.create(first);
    store.create(second);
    store.answer(second.id, { action: 'deny' }, NOW + 1);
    expect(store.statuses([])).toEqual(new Map());
    expect(store.statuses([first.id, second.id, 'apr_missing'])).toEqual(
      new Map([
        [first.id, 'pending'],
        [second.id, 'denied'],
      ]),
    );
  });

  test('"approve for this conversation" records a grant for the tool in the same answer', () => {
    const { store } = freshStore();
    const record = pending();
    store.create(record);
    store.answer(record.id, { action: 'approve', scope: 'conversation', by: 'alice' }, NOW + 1);
    expect(store.grant('bash__exec')).toEqual({ approvalId: record.id, by: 'alice' });
    expect(store.grant('bash__script')).toBeNull();
  });

  test('resetConversation ends grants and checkpoints and cancels pending approvals only', () => {
    const { store } = freshStore();
    const waiting = pending();
    const approved = pending();
    store.create(waiting);
    store.create(approved);
    store.answer(approved.id, { action: 'approve', scope: 'conversation' }, NOW + 1);
    store.addGrant('http-fetch__get', { by: 'cli' });
    store.saveResult('call_x', 'turn_1', { status: 'ok', output: 1 });
    store.resetConversation(NOW + 9);
    expect(store.get(waiting.id)).toMatchObject({ status: 'cancelled', decidedAt: NOW + 9 });
    expect(store.get(approved.id)?.status).toBe('approved');
    expect(store.grant('bash__exec')).toBeNull();
    expect(store.grant('http-fetch__get')).toBeNull();
    expect(store.savedResults(['call_x']).size).toBe(0);
  });

  test('checkpoints of finished results are saved, read back by call id and cleared', () => {
    const { store } = freshStore();
    store.saveResult('call_a', 'turn_1', { status: 'ok', output: { files: ['a'] } });
    store.saveResult('call_b', null, {
      status: 'error',
      error: { code: 'E_TOOL', name: 'ToolExecutionError', message: 'boom' },
    });
    store.saveResult('call_a', 'turn_1', { status: 'ok', output: 'replaced' });
    expect(store.savedResults([])).toEqual(new Map());
    const saved = store.savedResults(['call_a', 'call_b', 'call_c']);
    expect(saved.get('call_a')).toEqual({ status: 'ok', output: 'replaced' });
    expect(saved.get('call_b')?.error?.code).toBe('E_TOOL');
    expect(saved.has('call_c')).toBe(false);
    store.clearResults(['call_a']);
    expect([...store.savedResults(['call_a', 'call_b']).keys()]).toEqual(['call_b']);
    store.clearResults([]);
    expect(store.savedResults(['call_b']).size).toBe(1);
    store.clearResults();
    expect(store.savedResults(['call_b']).size).toBe(0);
  });

  test('everything survives closing the database, and another connection sees answers at once', () => {
    const { store, path } = freshStore();
    const record = pending();
    store.create(record);
    const other = open(path);
    expect(other.get(record.id)).toEqual(record);
    other.answer(record.id, { action: 'approve', scope: 'conversation', by: 'ops' }, NOW + 1);
    expect(store.statuses([record.id]).get(record.id)).toBe('approved');
    expect(store.grant('bash__exec')).toEqual({ approvalId: record.id, by: 'ops' });
    opened[0]?.close();
    opened.shift();
    expect(open(path).get(record.id)?.status).toBe('approved');
  });
});
