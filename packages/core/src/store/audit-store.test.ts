import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import type { AuditEntry } from '../permissions/permission-types.ts';
import { AuditStore } from './audit-store.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

function freshDatabase(): { db: Database; path: string } {
  const path = join(temp.make(), 'state.db');
  return { db: openInstanceDatabase(path), path };
}

let callNumber = 0;
function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  callNumber++;
  return {
    at: 1_700_000_000_000 + callNumber,
    agent: 'assistant',
    instanceKey: 'default',
    turnId: 'turn-1',
    toolCallId: `call-${callNumber}`,
    traceId: 'a'.repeat(32),
    toolName: 'calc__add',
    category: 'safe',
    source: 'user:cli',
    decision: 'allow',
    rule: 'default safe: allow',
    direct: false,
    approval: null,
    durationMs: 3.5,
    status: 'ok',
    errorCode: null,
    args: { a: 1, b: 2 },
    output: { sum: 3 },
    ...overrides,
  };
}

describe('AuditStore', () => {
  test('stores every field and reads it back with its seq', () => {
    const audit = new AuditStore(freshDatabase().db);
    const asked = entry({
      toolName: 'bash__exec',
      category: 'restricted',
      decision: 'ask',
      rule: 'tools.bash__*: ask',
      direct: true,
      approval: { id: 'appr_1', outcome: 'approved', scope: 'conversation', by: 'alice', reason: null },
      status: 'error',
      errorCode: 'E_TOOL',
      output: null,
    });
    const plain = entry({ turnId: null, traceId: null, category: null, source: null, rule: null });
    // Approved with no stored approval (gdn tools call --yes): the approval is kept, with a null id.
    const byFlag = entry({
      decision: 'ask',
      approval: { id: null, outcome: 'approved', scope: 'once', by: 'cli --yes', reason: null },
    });
    audit.append(asked);
    audit.append(plain);
    audit.append(byFlag);
    expect(audit.query()).toEqual([
      { ...asked, seq: 1 },
      { ...plain, seq: 2 },
      { ...byFlag, seq: 3 },
    ]);
  });

  test('redacts args, output and approval reasons before writing them', () => {
    const { db } = freshDatabase();
    const audit = new AuditStore(db, { secretValues: ['env-secret-value'] });
    audit.append(
      entry({
        args: { command: 'curl -u me https://x', password: 'hunter2', max_tokens: 10 },
        output: { stdout: 'got env-secret-value back' },
        approval: { id: 'appr_2', outcome: 'denied', scope: null, by: 'bob', reason: 'not with TOKEN=abc123' },
      }),
    );
    const [record] = audit.query();
    expect(record!.args).toEqual({ command: 'curl -u me https://x', password: '[REDACTED]', max_tokens: 10 });
    expect(record!.output).toEqual({ stdout: 'got [REDACTED] back' });
    expect(record!.approval!.reason).toBe('not with TOKEN=[REDACTED]');
    const raw = JSON.stringify(db.query('SELECT * FROM audit_log').all());
    expect(raw).not.toContain('hunter2');
    expect(raw).not.toContain('env-secret-value');
    expect(raw).not.toContain('abc123');
  });

  test('stores a preview instead of a field whose redacted JSON is longer than maxFieldChars', () => {
    const { db } = freshDatabase();
    const audit = new AuditStore(db, { maxFieldChars: 200 });
    const long = `api_key=${'k1'.repeat(20)}\n${'"quoted" '.repeat(100)}`;
    audit.append(entry({ args: { text: long }, output: 'short' }));
    const [record] = audit.query();
    const redactedJson = JSON.stringify({ text: long.replace(/api_key=\S+/, 'api_key=[REDACTED]') });
    const args = record!.args as { truncated: boolean; originalChars: number; preview: string };
    expect(args.truncated).toBe(true);
    expect(args.originalChars).toBe(redactedJson.length);
    expect(args.preview.length).toBeGreaterThan(50);
    expect(redactedJson.startsWith(args.preview)).toBe(true);
    expect(record!.output).toBe('short');
    const stored = db.query<{ args: string }, []>('SELECT args FROM audit_log').get()!.args;
    expect(stored.length).toBeLessThanOrEqual(200);
    expect(stored).not.toContain('k1k1');
  });

  test('filters by agent, exact tool, tool glob, decision, status, approvals and time', () => {
    const audit = new AuditStore(freshDatabase().db);
    const rows = [
      entry({ toolName: 'bash__exec', decision: 'ask', at: 1000 }),
      entry({
        toolName: 'bash__exec_async',
        decision: 'deny',
        status: 'error',
        errorCode: 'E_POLICY_DENIED',
        at: 2000,
      }),
      entry({ toolName: 'calc__add', agent: 'coder', at: 3000 }),
      entry({
        toolName: 'file-system__write',
        approval: { id: 'a1', outcome: 'approved', scope: 'once', by: 'alice', reason: null },
        at: 4000,
      }),
      entry({ toolName: 'bash?x', decision: 'refused', status: 'error', errorCode: 'E_TOOL_NOT_FOUND', at: 5000 }),
    ];
    for (const row of rows) audit.append(row);
    const tools = (filter: Parameters<AuditStore['query']>[0]) => audit.query(filter).map((record) => record.toolName);
    expect(tools({ agent: 'coder' })).toEqual(['calc__add']);
    expect(tools({ tool: 'bash__exec' })).toEqual(['bash__exec']);
    expect(tools({ tool: 'bash__*' })).toEqual(['bash__exec', 'bash__exec_async']);
    expect(tools({ tool: '*__e*' })).toEqual(['bash__exec', 'bash__exec_async']);
    // Only `*` is a wildcard: `?` matches itself.
    expect(tools({ tool: 'bash?*' })).toEqual(['bash?x']);
    expect(tools({ decision: 'deny' })).toEqual(['bash__exec_async']);
    expect(tools({ status: 'error' })).toEqual(['bash__exec_async', 'bash?x']);
    expect(tools({ approvalsOnly: true })).toEqual(['bash__exec', 'file-system__write']);
    expect(tools({ since: 3000 })).toEqual(['calc__add', 'file-system__write', 'bash?x']);
    expect(tools({ since: 2000, status: 'error', tool: 'bash*' })).toEqual(['bash__exec_async', 'bash?x']);
  });

  test('limit keeps the newest entries and returns them oldest first, ties in the order written', () => {
    const audit = new AuditStore(freshDatabase().db);
    for (const name of ['a', 'b', 'c', 'd']) audit.append(entry({ toolName: `t__${name}`, at: 7000 }));
    audit.append(entry({ toolName: 't__early', at: 10 }));
    expect(audit.query({ limit: 3 }).map((record) => record.toolName)).toEqual(['t__b', 't__c', 't__d']);
    expect(audit.query({ limit: 0 })).toEqual([]);
    expect(audit.query().map((record) => record.toolName)).toEqual(['t__early', 't__a', 't__b', 't__c', 't__d']);
  });

  test('append to a database it cannot write throws E_STORE_OPEN naming the file', () => {
    const { db, path } = freshDatabase();
    db.close();
    const readOnly = new Database(path, { readonly: true, strict: true });
    try {
      const audit = new AuditStore(readOnly);
      let thrown: unknown;
      try {
        audit.append(entry());
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(GoondanError);
      expect((thrown as GoondanError).code).toBe('E_STORE_OPEN');
      expect((thrown as GoondanError).message).toContain(path);
    } finally {
      readOnly.close();
    }
  });
});
