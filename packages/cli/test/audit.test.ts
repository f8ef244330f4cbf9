import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type AuditEntry, type AuditRecord, AuditStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import { agentBundle, cleanupTempDirs, gdn, gdnJson } from './helpers.ts';

const minute = 60_000;
const now = Date.now();
// Shaped like real credentials, built at run time so no scanner mistakes this file for a leak.
const openAiKey = `sk-proj-${'Ab3'.repeat(12)}`;
const secrets = ['hunter2-secret', 'abc123def456ghi', openAiKey];

let bundle: string;

function entry(overrides: Partial<AuditEntry> & Pick<AuditEntry, 'at' | 'toolName'>): AuditEntry {
  return {
    agent: 'helper',
    instanceKey: 'default',
    turnId: 'turn-1',
    toolCallId: `call-${overrides.at}`,
    traceId: null,
    category: 'safe',
    source: 'user:cli',
    decision: 'allow',
    rule: 'default safe: allow',
    direct: false,
    approval: null,
    durationMs: 12,
    status: 'ok',
    errorCode: null,
    args: {},
    output: null,
    ...overrides,
  };
}

/** Writes entries into the real instance database of `agent/instanceKey` under the bundle. */
function writeAudit(agent: string, instanceKey: string, entries: Partial<AuditEntry>[]): void {
  const { databaseFile } = instancePaths({ rootDir: bundle, agentName: agent, instanceKey });
  const db = openInstanceDatabase(databaseFile);
  try {
    const audit = new AuditStore(db);
    for (const fields of entries)
      audit.append(
        entry({ agent, instanceKey, ...fields } as Partial<AuditEntry> & Pick<AuditEntry, 'at' | 'toolName'>),
      );
  } finally {
    db.close();
  }
}

/** The tool column of each text line (columns are separated by two or more spaces). */
function toolsOf(stdout: string): string[] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith(' '))
    .map((line) => line.split(/ {2,}/)[2]!);
}

beforeAll(async () => {
  bundle = await agentBundle();
  writeAudit('helper', 'default', [
    { at: now - 3 * 24 * 60 * minute, toolName: 'calc__add', args: { a: 1, b: 2 }, output: { sum: 3 } },
    {
      at: now - 50 * minute,
      toolName: 'bash__exec',
      category: 'restricted',
      decision: 'ask',
      rule: 'default restricted: ask',
      approval: { id: 'appr_1', outcome: 'approved', scope: 'conversation', by: 'alice', reason: null },
      durationMs: 1534,
      args: { command: 'curl -H "Authorization: Bearer abc123def456ghi" https://api.example.com', api_key: openAiKey },
      output: { stdout: 'ok', exitCode: 0 },
    },
    {
      at: now - 20 * minute,
      toolName: 'bash__exec_async',
      category: 'restricted',
      decision: 'ask',
      approval: { id: 'appr_2', outcome: 'denied', scope: null, by: 'bob', reason: 'not now' },
      status: 'error',
      errorCode: 'E_APPROVAL_DENIED',
      args: { command: 'rm -rf build' },
    },
  ]);
  writeAudit('helper', 'second', [
    {
      at: now - 10 * minute,
      toolName: 'file-system__read',
      args: { path: 'config.yaml' },
      output: { content: 'user: app\npassword: hunter2-secret\n' },
    },
  ]);
  writeAudit('coder', 'default', [
    {
      at: now - 40 * minute,
      toolName: 'secret__peek',
      category: null,
      decision: 'refused',
      rule: null,
      status: 'error',
      errorCode: 'E_TOOL_NOT_IN_CATALOG',
    },
    {
      at: now - 5 * minute,
      toolName: 'bash__exec',
      category: 'restricted',
      decision: 'deny',
      rule: 'tools.bash__*: deny',
      status: 'error',
      errorCode: 'E_POLICY_DENIED',
      durationMs: 0.4,
    },
  ]);
});
afterAll(cleanupTempDirs);

describe('gdn audit', () => {
  test('lists the calls of every instance merged by time, newest last, one line each', async () => {
    const result = await gdn(['audit', '--bundle', bundle]);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/ {2,}/).slice(1))).toEqual([
      ['helper/default', 'calc__add', 'safe', 'allow', 'ok', '12ms'],
      ['helper/default', 'bash__exec', 'restricted', 'ask→approved by alice (conversation)', 'ok', '1.5s'],
      ['coder/default', 'secret__peek', '-', 'refused', 'error E_TOOL_NOT_IN_CATALOG', '12ms'],
      ['helper/default', 'bash__exec_async', 'restricted', 'ask→denied by bob', 'error E_APPROVAL_DENIED', '12ms'],
      ['helper/second', 'file-system__read', 'safe', 'allow', 'ok', '12ms'],
      ['coder/default', 'bash__exec', 'restricted', 'deny', 'error E_POLICY_DENIED', '0ms'],
    ]);
    expect(lines[0]).toStartWith(`${new Date(now - 3 * 24 * 60 * minute).toISOString()}  `);
  });

  test('filters by tool glob, decision, status, approvals, agent and instance', async () => {
    const tools = async (args: string[]) => {
      const result = await gdn(['audit', '--bundle', bundle, ...args]);
      expect(result.exitCode).toBe(0);
      return toolsOf(result.stdout);
    };
    expect(await tools(['--tool', 'bash__*'])).toEqual(['bash__exec', 'bash__exec_async', 'bash__exec']);
    expect(await tools(['--tool', 'bash__exec'])).toEqual(['bash__exec', 'bash__exec']);
    expect(await tools(['--decision', 'deny'])).toEqual(['bash__exec']);
    expect(await tools(['--decision', 'refused'])).toEqual(['secret__peek']);
    expect(await tools(['--status', 'error', '--tool', 'bash*'])).toEqual(['bash__exec_async', 'bash__exec']);
    expect(await tools(['--approvals'])).toEqual(['bash__exec', 'bash__exec_async']);
    expect(await tools(['--agent', 'coder'])).toEqual(['secret__peek', 'bash__exec']);
    expect(await tools(['--agent', 'helper', '--instance', 'second'])).toEqual(['file-system__read']);
    expect(await tools(['--instance', 'default', '--status', 'ok'])).toEqual(['calc__add', 'bash__exec']);
    expect(await tools(['--limit', '2'])).toEqual(['file-system__read', 'bash__exec']);
  });

  test('--since takes a duration or an ISO date', async () => {
    const result = await gdn(['audit', '--bundle', bundle, '--since', '1h']);
    expect(toolsOf(result.stdout)).toEqual([
      'bash__exec',
      'secret__peek',
      'bash__exec_async',
      'file-system__read',
      'bash__exec',
    ]);
    const iso = await gdn(['audit', '--bundle', bundle, '--since', new Date(now - 30 * minute).toISOString()]);
    expect(toolsOf(iso.stdout)).toEqual(['bash__exec_async', 'file-system__read', 'bash__exec']);
    const none = await gdn(['audit', '--bundle', bundle, '--since', '1m']);
    expect(none.exitCode).toBe(0);
    expect(none.stdout.trim()).toBe('No tool calls match.');
  });

  test('--json prints the audit records, redacted', async () => {
    const { result, json } = await gdnJson<AuditRecord[]>(['audit', '--bundle', bundle, '--approvals', '--json']);
    expect(result.exitCode).toBe(0);
    expect(json).toHaveLength(2);
    expect(json[0]).toMatchObject({
      seq: 2,
      agent: 'helper',
      instanceKey: 'default',
      toolName: 'bash__exec',
      decision: 'ask',
      approval: { id: 'appr_1', outcome: 'approved', scope: 'conversation', by: 'alice', reason: null },
      status: 'ok',
      args: {
        command: 'curl -H "Authorization: [REDACTED]" https://api.example.com',
        api_key: '[REDACTED]',
      },
      output: { stdout: 'ok', exitCode: 0 },
    });
    expect(json[1]!.approval!.reason).toBe('not now');
  });

  test('a secret in the arguments or output never reaches the output, verbose or JSON', async () => {
    for (const args of [['--verbose'], ['--json']]) {
      const result = await gdn(['audit', '--bundle', bundle, ...args]);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('[REDACTED]');
      for (const secret of secrets) expect(result.stdout).not.toContain(secret);
    }
    const verbose = await gdn(['audit', '--bundle', bundle, '--verbose', '--tool', 'file-system__read']);
    expect(verbose.stdout).toContain('    args: {"path":"config.yaml"}');
    expect(verbose.stdout).toContain('    output: {"content":"user: app\\npassword: [REDACTED]\\n"}');
  });

  test('bad options are usage errors that say what is expected', async () => {
    const cases: [string[], string][] = [
      [
        ['--since', 'nonsense'],
        "--since must be a duration (30m, 2h, 1d) or an ISO date (2025-01-31T12:00Z); got 'nonsense'",
      ],
      [['--since', '5 minutes'], '--since must be a duration'],
      [['--limit', '0'], '--limit must be a positive integer'],
      [['--limit', 'ten'], '--limit must be a positive integer'],
      [['--decision', 'maybe'], "--decision must be one of allow, ask, deny, refused; got 'maybe'"],
      [['--status', 'done'], "--status must be one of ok, error, pending; got 'done'"],
      [['--colour'], "Unknown option '--colour'"],
    ];
    for (const [args, message] of cases) {
      const result = await gdn(['audit', '--bundle', bundle, ...args]);
      expect({ args, exitCode: result.exitCode }).toEqual({ args, exitCode: 2 });
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain("Run 'gdn audit --help' for usage.");
    }
  });

  test('an agent with no database is a clear error naming the instances that have one', async () => {
    const result = await gdn(['audit', '--bundle', bundle, '--agent', 'nobody']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `E_INSTANCE_NOT_FOUND No instance database for nobody/* under ${bundle}/.goondan/instances. Instances with one: coder/default, helper/default, helper/second.`,
    );
    expect(result.stderr).toContain('  suggestion: Name one of the instances listed');
    expect(result.stderr).toContain('/docs/errors/E_INSTANCE_NOT_FOUND.md');
  });

  test('a bundle where nothing has run yet says so, and creates no database', async () => {
    const fresh = await agentBundle();
    const result = await gdn(['audit', '--bundle', fresh]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toStartWith('No audit log yet in ');
    const json = await gdnJson<unknown[]>(['audit', '--bundle', fresh, '--json']);
    expect(json.json).toEqual([]);
    const named = await gdn(['audit', '--bundle', fresh, '--agent', 'helper']);
    expect(named.exitCode).toBe(1);
    expect(named.stderr).toContain('No agent instance of this bundle has run yet.');
    expect(await Bun.file(`${fresh}/.goondan/instances/helper/default/state.db`).exists()).toBe(false);
  });
});
