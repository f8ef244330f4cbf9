import type { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import {
  ApprovalCoordinator,
  type ApprovalGate,
  type ApprovalRequest,
  type ApprovalResolution,
} from '../permissions/approvals.ts';
import { PermissionPolicy } from '../permissions/permission-policy.ts';
import type { AgentPermissionsSpec, AuditEntry, CallSource } from '../permissions/permission-types.ts';
import { ApprovalStore } from '../store/approval-store.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { createTempDirs } from '../store/test-support.ts';
import type { ToolCall, ToolCallMiddleware, ToolCatalogItem } from '../types.ts';
import type { CallScope } from './call-scope.ts';
import { registryWith, testScope } from './test-support.ts';
import { ToolCatalog } from './tool-catalog.ts';
import { ToolExecutor } from './tool-executor.ts';

const read: ToolCatalogItem = {
  name: 'files__read',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const write: ToolCatalogItem = {
  name: 'files__write',
  parameters: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } },
};
const exec: ToolCatalogItem = {
  name: 'shell__exec',
  parameters: {
    type: 'object',
    properties: { command: { type: 'string', minLength: 1 } },
    required: ['command'],
    additionalProperties: false,
  },
};
/** Registered, restricted, and never in the catalog. */
const wipe: ToolCatalogItem = { name: 'vault__wipe', parameters: { type: 'object' } };

const cli: CallSource = { kind: 'user', name: 'cli' };
const telegram: CallSource = { kind: 'user', name: 'telegram' };

function setup(options: { permissions?: AgentPermissionsSpec; middlewares?: ToolCallMiddleware[] } = {}) {
  const ran: string[] = [];
  const handler = (name: string) => (_ctx: unknown, input: Record<string, unknown>) => {
    ran.push(name);
    return { ran: name, input };
  };
  const registry = registryWith([
    { item: read, handler: handler('files__read'), options: { category: 'safe' } },
    { item: write, handler: handler('files__write'), options: { category: 'sensitive' } },
    { item: exec, handler: handler('shell__exec'), options: { category: 'restricted' } },
    { item: wipe, handler: handler('vault__wipe'), options: { category: 'restricted' } },
  ]);
  const executor = new ToolExecutor({
    registry,
    permissions: new PermissionPolicy(options.permissions ?? {}),
    middlewares: options.middlewares,
  });
  const catalog = new ToolCatalog([read, write, exec]);
  const audit: AuditEntry[] = [];
  const scope = (overrides: Partial<CallScope> = {}): CallScope =>
    testScope({
      source: cli,
      audit: (entry) => audit.push(entry),
      trace: { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16) },
      ...overrides,
    });
  const call = (toolCall: ToolCall, overrides: Partial<CallScope> = {}) =>
    executor.execute(toolCall, { catalog, scope: scope(overrides) });
  return { executor, catalog, audit, ran, call, scope };
}

/** A gate that answers every request with `answer` and remembers what it was asked. */
function fakeGate(answer: Partial<ApprovalResolution> | ((request: ApprovalRequest) => Promise<ApprovalResolution>)) {
  const requests: ApprovalRequest[] = [];
  const gate: ApprovalGate = {
    request(request) {
      requests.push(request);
      if (typeof answer === 'function') return answer(request);
      return Promise.resolve({ outcome: 'approved', id: 'apr_1', scope: 'once', by: 'alice', reason: null, ...answer });
    },
  };
  return { gate, requests };
}

describe('policy deny', () => {
  test('is E_POLICY_DENIED naming the rule, and the handler never runs', async () => {
    const { call, ran, audit } = setup({ permissions: { restricted: 'deny' } });
    const result = await call({ id: 'c1', name: 'shell__exec', args: { command: 'rm -rf /' } });
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('E_POLICY_DENIED');
    expect(result.error?.name).toBe('PolicyDeniedError');
    expect(result.error?.message).toBe(
      "Tool 'shell__exec' (restricted) is denied by the agent's permissions (restricted: deny for turns from user:cli).",
    );
    expect(result.error?.helpUrl).toContain('E_POLICY_DENIED');
    expect(ran).toEqual([]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      toolName: 'shell__exec',
      toolCallId: 'c1',
      category: 'restricted',
      source: 'user:cli',
      decision: 'deny',
      rule: 'restricted: deny',
      direct: false,
      approval: null,
      status: 'error',
      errorCode: 'E_POLICY_DENIED',
      args: { command: 'rm -rf /' },
      output: null,
      traceId: 'c'.repeat(32),
    });
  });

  test('comes before argument validation: invalid or broken arguments are still E_POLICY_DENIED', async () => {
    const { call, ran, audit } = setup({ permissions: { tools: { 'shell__*': 'deny' } } });
    const invalid = await call({ id: 'c1', name: 'shell__exec', args: { command: '', extra: true } });
    const broken = await call({ id: 'c2', name: 'shell__exec', args: '{"command": ' as never });
    const notObject = await call({ id: 'c3', name: 'shell__exec', args: '[1, 2]' as never });
    for (const result of [invalid, broken, notObject]) {
      expect(result.error?.code).toBe('E_POLICY_DENIED');
      expect(result.error?.message).toContain('tools."shell__*": deny');
    }
    expect(ran).toEqual([]);
    expect(audit.map((entry) => [entry.decision, entry.errorCode])).toEqual([
      ['deny', 'E_POLICY_DENIED'],
      ['deny', 'E_POLICY_DENIED'],
      ['deny', 'E_POLICY_DENIED'],
    ]);
  });

  test('toolCall middleware never sees a denied call', async () => {
    let seen = 0;
    const counting: ToolCallMiddleware = async (ctx) => {
      seen++;
      return ctx.next();
    };
    const { call } = setup({ permissions: { restricted: 'deny' }, middlewares: [counting] });
    await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } });
    expect(seen).toBe(0);
    await call({ id: 'c2', name: 'files__read', args: { path: 'a' } });
    expect(seen).toBe(1);
  });

  test('a call outside the catalog never runs: a denied tool is told why, any other is E_TOOL_NOT_IN_CATALOG', async () => {
    const { executor, call, ran, audit, scope } = setup({ permissions: { tools: { vault__wipe: 'deny' } } });
    // The agent's catalog had the tool; the permissions hid it, so a call to it anyway is told why.
    const visible = executor.visibleCatalog(new ToolCatalog([read, write, exec, wipe]), cli);
    expect(visible.names()).toEqual(['files__read', 'files__write', 'shell__exec']);
    expect([...visible.denied]).toEqual(['vault__wipe']);
    const denied = await executor.execute(
      { id: 'c1', name: 'vault__wipe', args: 'not json' as never },
      { catalog: visible, scope: scope() },
    );
    expect(denied.error?.code).toBe('E_POLICY_DENIED');
    expect(denied.error?.message).toContain('tools.vault__wipe: deny');
    // A denied tool that was never in the catalog is not revealed: just not in the catalog.
    const hidden = await call({ id: 'c2', name: 'vault__wipe', args: {} });
    expect(hidden.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    const { call: callOpen, ran: ranOpen, audit: auditOpen } = setup({ permissions: { restricted: 'allow' } });
    const outside = await callOpen({ id: 'c3', name: 'vault__wipe', args: {} });
    expect(outside.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    expect([...ran, ...ranOpen]).toEqual([]);
    expect(audit[0]).toMatchObject({
      toolName: 'vault__wipe',
      decision: 'deny',
      rule: 'tools.vault__wipe: deny',
      category: 'restricted',
      direct: false,
      errorCode: 'E_POLICY_DENIED',
    });
    expect(auditOpen[0]).toMatchObject({
      toolName: 'vault__wipe',
      decision: 'refused',
      rule: null,
      category: null,
      direct: false,
      errorCode: 'E_TOOL_NOT_IN_CATALOG',
    });
  });

  test('an unknown tool name is E_TOOL_NOT_IN_CATALOG whatever the rules say about it', async () => {
    const { call } = setup({ permissions: { tools: { '*': 'deny' } } });
    const result = await call({ id: 'c1', name: 'ghost__run', args: {} });
    expect(result.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
  });

  test('a registry direct call named by the policy is still refused when its tool is denied', async () => {
    const { call, ran, audit } = setup({ permissions: { registryDirectCalls: ['vault__*'], restricted: 'deny' } });
    const result = await call({ id: 'c1', name: 'vault__wipe', args: {} });
    expect(result.error?.code).toBe('E_POLICY_DENIED');
    expect(ran).toEqual([]);
    expect(audit[0]).toMatchObject({ decision: 'deny', direct: true, category: 'restricted' });
  });

  test('a direct call to a tool not named in registryDirectCalls is refused by the guard', async () => {
    const { call, ran } = setup({ permissions: { registryDirectCalls: ['shell__*'] } });
    const result = await call({ id: 'c1', name: 'vault__wipe', args: {} });
    expect(result.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    expect(ran).toEqual([]);
  });
});

describe('policy ask', () => {
  test('with no gate the call is E_APPROVAL_DENIED and does not run', async () => {
    const { call, ran, audit } = setup();
    const result = await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } });
    expect(result.error?.code).toBe('E_APPROVAL_DENIED');
    expect(result.error?.message).toContain('default restricted: ask');
    expect(result.error?.message).toContain('nobody can approve calls here');
    expect(ran).toEqual([]);
    expect(audit[0]).toMatchObject({
      decision: 'ask',
      rule: 'default restricted: ask',
      approval: null,
      status: 'error',
      errorCode: 'E_APPROVAL_DENIED',
    });
  });

  test('approved: the gate is asked with what the person must see, then the call runs', async () => {
    const { call, ran, audit } = setup();
    const { gate, requests } = fakeGate({});
    const controller = new AbortController();
    const result = await call(
      { id: 'c1', name: 'shell__exec', args: '{"command":"make deploy"}' as never },
      { approvals: gate, signal: controller.signal },
    );
    expect(result).toEqual({ status: 'ok', output: { ran: 'shell__exec', input: { command: 'make deploy' } } });
    expect(ran).toEqual(['shell__exec']);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      toolName: 'shell__exec',
      toolCallId: 'c1',
      category: 'restricted',
      args: { command: 'make deploy' },
      rule: 'default restricted: ask',
      source: cli,
      turnId: 'turn_1',
      traceId: 'c'.repeat(32),
    });
    expect(requests[0]?.signal).toBe(controller.signal);
    expect(audit[0]).toMatchObject({
      decision: 'ask',
      rule: 'default restricted: ask',
      approval: { id: 'apr_1', outcome: 'approved', scope: 'once', by: 'alice', reason: null },
      status: 'ok',
      errorCode: null,
      output: { ran: 'shell__exec', input: { command: 'make deploy' } },
    });
  });

  test('the person is asked before toolCall middleware runs', async () => {
    const order: string[] = [];
    const logging: ToolCallMiddleware = async (ctx) => {
      order.push('middleware');
      return ctx.next();
    };
    const { call } = setup({ middlewares: [logging] });
    const { gate } = fakeGate(async () => {
      order.push('asked');
      return { outcome: 'approved', id: 'apr_1', scope: 'once', by: 'user', reason: null };
    });
    await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate });
    expect(order).toEqual(['asked', 'middleware']);
  });

  test('denied: E_APPROVAL_DENIED carries who denied it and the reason, and the call does not run', async () => {
    const { call, ran, audit } = setup();
    const { gate } = fakeGate({
      outcome: 'denied',
      id: 'apr_2',
      scope: null,
      by: 'bob',
      reason: 'use the staging box',
    });
    const result = await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate });
    expect(result.error?.code).toBe('E_APPROVAL_DENIED');
    expect(result.error?.message).toContain("'shell__exec'");
    expect(result.error?.message).toContain('bob');
    expect(result.error?.message).toContain('Reason: use the staging box.');
    expect(ran).toEqual([]);
    expect(audit[0]).toMatchObject({
      decision: 'ask',
      approval: { id: 'apr_2', outcome: 'denied', scope: null, by: 'bob', reason: 'use the staging box' },
      status: 'error',
      errorCode: 'E_APPROVAL_DENIED',
    });
  });

  test('denied without a reason says so', async () => {
    const { call } = setup();
    const { gate } = fakeGate({ outcome: 'denied', by: null, reason: '  ' });
    const result = await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate });
    expect(result.error?.message).toContain("'shell__exec'");
    expect(result.error?.message).toContain('Reason: none given.');
  });

  test('expired: E_APPROVAL_TIMEOUT naming the approval', async () => {
    const { call, ran, audit } = setup();
    const { gate } = fakeGate({ outcome: 'expired', id: 'apr_3', scope: null, by: null });
    const result = await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate });
    expect(result.error?.code).toBe('E_APPROVAL_TIMEOUT');
    expect(result.error?.message).toContain('apr_3');
    expect(ran).toEqual([]);
    expect(audit[0]?.approval).toMatchObject({ id: 'apr_3', outcome: 'expired' });
    expect(audit[0]?.errorCode).toBe('E_APPROVAL_TIMEOUT');
  });

  test('cancelled: E_TOOL_ABORTED', async () => {
    const { call, ran, audit } = setup();
    const { gate } = fakeGate({ outcome: 'cancelled', id: 'apr_4', scope: null, by: null });
    const result = await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate });
    expect(result.error?.code).toBe('E_TOOL_ABORTED');
    expect(result.error?.message).toContain('waited for approval (apr_4)');
    expect(ran).toEqual([]);
    expect(audit[0]?.approval?.outcome).toBe('cancelled');
  });

  test('a gate that throws refuses the call instead of crashing it', async () => {
    const { call, ran } = setup();
    const { gate } = fakeGate(() => Promise.reject(new Error('database is locked')));
    const result = await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate });
    expect(result.status).toBe('error');
    expect(result.error?.message).toContain('database is locked');
    expect(ran).toEqual([]);
  });

  test('invalid arguments are refused before anyone is asked', async () => {
    const { call, ran, audit } = setup();
    const { gate, requests } = fakeGate({});
    const invalid = await call({ id: 'c1', name: 'shell__exec', args: { command: '' } }, { approvals: gate });
    const broken = await call({ id: 'c2', name: 'shell__exec', args: 'nope' as never }, { approvals: gate });
    const extra = await call(
      { id: 'c3', name: 'shell__exec', args: { command: 'ls', sudo: true } },
      { approvals: gate },
    );
    for (const result of [invalid, broken, extra]) expect(result.error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect(requests).toEqual([]);
    expect(ran).toEqual([]);
    expect(audit.map((entry) => [entry.decision, entry.rule, entry.approval, entry.errorCode])).toEqual([
      ['refused', null, null, 'E_TOOL_INVALID_ARGS'],
      ['refused', null, null, 'E_TOOL_INVALID_ARGS'],
      ['refused', null, null, 'E_TOOL_INVALID_ARGS'],
    ]);
  });

  test('a registry direct call that the policy asks about waits for the person too', async () => {
    const { call, ran, audit } = setup({ permissions: { registryDirectCalls: ['vault__wipe'] } });
    const { gate, requests } = fakeGate({ outcome: 'denied', reason: 'never' });
    const result = await call({ id: 'c1', name: 'vault__wipe', args: {} }, { approvals: gate });
    expect(result.error?.code).toBe('E_APPROVAL_DENIED');
    expect(requests.map((request) => request.toolName)).toEqual(['vault__wipe']);
    expect(ran).toEqual([]);
    expect(audit[0]).toMatchObject({ direct: true, decision: 'ask', approval: { outcome: 'denied' } });
  });

  test('a call without a source is asked about as system:unknown', async () => {
    const { call } = setup();
    const { gate, requests } = fakeGate({});
    await call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate, source: undefined });
    expect(requests[0]?.source).toEqual({ kind: 'system', name: 'unknown' });
  });
});

describe('policy allow', () => {
  test('runs without asking, and the audit names the rule', async () => {
    const { call, ran, audit } = setup();
    const { gate, requests } = fakeGate({});
    const result = await call({ id: 'c1', name: 'files__read', args: { path: 'a.txt' } }, { approvals: gate });
    expect(result.status).toBe('ok');
    expect(ran).toEqual(['files__read']);
    expect(requests).toEqual([]);
    expect(audit[0]).toMatchObject({
      category: 'safe',
      decision: 'allow',
      rule: 'default safe: allow',
      approval: null,
      direct: false,
      status: 'ok',
      errorCode: null,
    });
  });
});

describe('sources', () => {
  const permissions: AgentPermissionsSpec = {
    sources: { 'user:telegram': { restricted: 'deny', sensitive: 'ask' } },
  };

  test('a remote source is denied restricted tools while the command line is asked', async () => {
    const { call, ran, audit } = setup({ permissions });
    const { gate, requests } = fakeGate({});
    const remote = await call(
      { id: 'c1', name: 'shell__exec', args: { command: 'ls' } },
      { approvals: gate, source: telegram },
    );
    expect(remote.error?.code).toBe('E_POLICY_DENIED');
    expect(remote.error?.message).toContain('sources.user:telegram.restricted: deny for turns from user:telegram');
    const local = await call({ id: 'c2', name: 'shell__exec', args: { command: 'ls' } }, { approvals: gate });
    expect(local.status).toBe('ok');
    expect(requests.map((request) => [request.toolCallId, request.rule])).toEqual([['c2', 'default restricted: ask']]);
    expect(ran).toEqual(['shell__exec']);
    expect(audit.map((entry) => [entry.source, entry.decision, entry.rule])).toEqual([
      ['user:telegram', 'deny', 'sources.user:telegram.restricted: deny'],
      ['user:cli', 'ask', 'default restricted: ask'],
    ]);
  });

  test('a source rule turns an allowed tool into a question for that source only', async () => {
    const { call } = setup({ permissions });
    const { gate, requests } = fakeGate({ outcome: 'denied', reason: 'not from the phone' });
    const remote = await call(
      { id: 'c1', name: 'files__write', args: { path: 'a', text: 'b' } },
      { approvals: gate, source: telegram },
    );
    expect(remote.error?.code).toBe('E_APPROVAL_DENIED');
    const local = await call({ id: 'c2', name: 'files__write', args: { path: 'a', text: 'b' } }, { approvals: gate });
    expect(local.status).toBe('ok');
    expect(requests.map((request) => request.toolCallId)).toEqual(['c1']);
  });

  test('visibleCatalog hides the tools denied to a source and keeps the same object when nothing is hidden', () => {
    const { executor, catalog } = setup({ permissions });
    expect(executor.visibleCatalog(catalog, telegram).names()).toEqual(['files__read', 'files__write']);
    expect(executor.visibleCatalog(catalog, cli)).toBe(catalog);
    expect(executor.visibleCatalog(catalog)).toBe(catalog);
  });

  test('visibleCatalog keeps catalog names with nothing registered (the guard answers them)', () => {
    const { executor } = setup({ permissions: { restricted: 'deny' } });
    const withGhost = new ToolCatalog([read, { name: 'ghost__run' }, exec]);
    expect(executor.visibleCatalog(withGhost, cli).names()).toEqual(['files__read', 'ghost__run']);
  });

  test('verdictFor answers per source, and null for a tool nobody registered', () => {
    const { executor } = setup({ permissions });
    expect(executor.verdictFor('shell__exec', telegram)?.decision).toBe('deny');
    expect(executor.verdictFor('shell__exec', cli)?.decision).toBe('ask');
    expect(executor.verdictFor('ghost__run', cli)).toBeNull();
  });
});

describe('with a real ApprovalCoordinator', () => {
  const temp = createTempDirs();
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
    temp.cleanup();
  });

  function coordinator(path: string, requested: string[] = []) {
    const db: Database = openInstanceDatabase(path);
    const approvals = new ApprovalCoordinator({
      store: new ApprovalStore(db),
      agent: 'agent',
      instanceKey: 'default',
      timeoutMs: 60_000,
      pollIntervalMs: 10,
      onRequested: (record) => requested.push(record.id),
    });
    closers.push(() => {
      approvals.close();
      db.close();
    });
    return approvals;
  }

  test('the call waits until another process approves it, then runs once', async () => {
    const path = join(temp.make(), 'state.db');
    const requested: string[] = [];
    const approvals = coordinator(path, requested);
    const { call, ran, audit } = setup();
    const running = call({ id: 'c1', name: 'shell__exec', args: { command: 'ls' } }, { approvals });
    while (requested.length === 0) await Bun.sleep(2);
    expect(ran).toEqual([]);
    coordinator(path).answer(requested[0]!, { action: 'approve', scope: 'conversation', by: 'ops' });
    expect((await running).status).toBe('ok');
    expect(ran).toEqual(['shell__exec']);
    expect(audit[0]?.approval).toEqual({
      id: requested[0]!,
      outcome: 'approved',
      scope: 'conversation',
      by: 'ops',
      reason: null,
    });
    const next = await call({ id: 'c2', name: 'shell__exec', args: { command: 'pwd' } }, { approvals });
    expect(next.status).toBe('ok');
    expect(requested).toHaveLength(1);
  });
});
