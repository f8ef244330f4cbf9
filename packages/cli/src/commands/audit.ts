import {
  type AuditFilter,
  type AuditRecord,
  AuditStore,
  openInstanceDatabase,
  permissionDecisions,
} from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { formatDuration } from '../format-duration.ts';
import { instanceDatabasesFor } from '../instance-databases.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { paint, printable, type Style, UsageError, useColor } from '../terminal.ts';
import { formatTable } from '../text-table.ts';
import { wholeNumber } from '../whole-number.ts';

export const auditHelp = `Usage: gdn audit [--agent A] [--instance K] [--tool NAME|GLOB] [--decision D] [--status S] [--approvals]
                 [--since WHEN] [--limit N] [--verbose] [--json] [--bundle DIR]

Lists the audit log: one line per tool call that reached the executor, from every agent instance of the bundle
(or the one chosen), merged by time, newest last. Arguments and outputs are stored with secrets redacted.

Options:
  --agent A        only this agent's instances
  --instance K     only instances with this key
  --tool NAME      a tool name, or a glob where * matches anything (bash__*)
  --decision D     allow, ask, deny or refused (stopped before the policy: not in the catalog, bad arguments)
  --status S       ok, error or pending
  --approvals      only calls that asked a person
  --since WHEN     a duration back from now (90s, 30m, 2h, 1d, 1w) or an ISO date (2025-01-31, 2025-01-31T12:00Z)
  --limit N        how many calls, newest last (default: 50)
  --verbose        also the rule, source, trace id, and the redacted arguments and output
  --json           the calls as a JSON array of audit records
  --bundle DIR     the bundle directory (default: the current directory or a parent with goondan.yaml)`;

const decisions: readonly string[] = [...permissionDecisions, 'refused'];
const statuses: readonly string[] = ['ok', 'error', 'pending'];
const unitMs: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `2h`, `1d` back from `now`, or an ISO date; undefined when it is neither. */
function parseSince(text: string, now: number): number | undefined {
  const relative = /^(\d+)([smhdw])$/.exec(text);
  if (relative) {
    const since = now - Number(relative[1]) * unitMs[relative[2]!]!;
    return Number.isSafeInteger(since) ? since : undefined;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

function oneOf(value: string | undefined, allowed: readonly string[], flag: string): string | undefined {
  if (value !== undefined && !allowed.includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got '${value}'`, 'audit');
  return value;
}

function readFilter(values: Record<string, string | boolean | undefined>): AuditFilter & { limit: number } {
  const limit = values.limit === undefined ? 50 : wholeNumber(String(values.limit), 1);
  if (limit === null) throw new UsageError(`--limit must be a positive integer, got '${values.limit}'`, 'audit');
  let since: number | undefined;
  if (typeof values.since === 'string') {
    since = parseSince(values.since, Date.now());
    if (since === undefined)
      throw new UsageError(
        `--since must be a duration (30m, 2h, 1d) or an ISO date (2025-01-31T12:00Z); got '${values.since}'`,
        'audit',
      );
  }
  return {
    tool: values.tool as string | undefined,
    decision: oneOf(values.decision as string | undefined, decisions, '--decision'),
    status: oneOf(values.status as string | undefined, statuses, '--status'),
    approvalsOnly: values.approvals === true,
    since,
    limit,
  };
}

export async function auditCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'audit',
    argv,
    spec: {
      agent: { type: 'string' },
      instance: { type: 'string' },
      tool: { type: 'string' },
      decision: { type: 'string' },
      status: { type: 'string' },
      approvals: { type: 'boolean' },
      since: { type: 'string' },
      limit: { type: 'string' },
      verbose: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(auditHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'audit');
  if (values.json) reserveStdoutForJson();
  const filter = readFilter(values);
  const { dir, all, chosen } = instanceDatabasesFor(values);
  const records: AuditRecord[] = [];
  // Each database gives its newest `limit`; the merge keeps the newest `limit` of them all.
  for (const file of chosen) {
    const db = openInstanceDatabase(file.databaseFile, { forReading: true });
    try {
      records.push(...new AuditStore(db).query(filter));
    } finally {
      db.close();
    }
  }
  records.sort(
    (a, b) => a.at - b.at || compare(a.agent, b.agent) || compare(a.instanceKey, b.instanceKey) || a.seq - b.seq,
  );
  const shown = records.slice(-filter.limit);
  if (values.json) {
    printJson(shown);
    return 0;
  }
  if (shown.length === 0) {
    console.log(
      all.length === 0
        ? `No audit log yet in ${dir}: no agent instance has run. Run a turn with 'gdn run' or 'gdn chat'.`
        : 'No tool calls match.',
    );
    return 0;
  }
  printRecords(shown, values.verbose === true, useColor());
  return 0;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `allow`, or with an approval `ask→approved by alice (conversation)`. */
function decisionText(record: AuditRecord): string {
  const { approval } = record;
  if (!approval) return record.decision;
  const by = approval.by ? ` by ${approval.by}` : '';
  const scope = approval.scope === 'conversation' ? ' (conversation)' : '';
  return `${record.decision}→${approval.outcome}${by}${scope}`;
}

function decisionStyle(record: AuditRecord): Style {
  if (record.decision === 'deny' || record.decision === 'refused') return 'red';
  if (record.approval && record.approval.outcome !== 'approved') return 'red';
  return record.decision === 'ask' ? 'yellow' : 'green';
}

function printRecords(records: AuditRecord[], verbose: boolean, color: boolean): void {
  // A refused call's tool name and the approver's words are what a model or a person wrote: made printable before
  // the table's own colours are added.
  const rows = records.map((record) => cellsOf(record).map(printable));
  for (const [index, record] of records.entries()) {
    const cells = rows[index]!;
    cells[0] = paint(cells[0]!, 'dim', color);
    cells[4] = paint(cells[4]!, decisionStyle(record), color);
    cells[5] = paint(cells[5]!, record.status === 'ok' ? 'green' : record.status === 'error' ? 'red' : 'yellow', color);
  }
  // Widths are measured without the colour codes, so coloured and wide (Korean) cells line up.
  for (const [index, line] of formatTable(rows).entries()) {
    console.log(line);
    if (verbose) printDetails(records[index]!);
  }
}

function cellsOf(record: AuditRecord): string[] {
  return [
    new Date(record.at).toISOString(),
    `${record.agent}/${record.instanceKey}`,
    record.direct ? `${record.toolName} (direct)` : record.toolName,
    record.category ?? '-',
    decisionText(record),
    record.status === 'error' && record.errorCode ? `error ${record.errorCode}` : record.status,
    formatDuration(record.durationMs),
  ];
}

function printDetails(record: AuditRecord): void {
  const facts = [
    record.rule ? `rule ${record.rule}` : '',
    record.source ? `source ${record.source}` : '',
    record.traceId ? `trace ${record.traceId}` : '',
    `call ${record.toolCallId}`,
  ].filter((fact) => fact !== '');
  console.log(`    ${printable(facts.join('  '))}`);
  if (record.approval?.reason) console.log(`    reason: ${printable(record.approval.reason)}`);
  // JSON escapes C0 codes, not DEL or C1 codes (an 8-bit CSI): a model's arguments and a tool's output hold any.
  console.log(`    args: ${printable(JSON.stringify(record.args) ?? '')}`);
  if (record.output !== null) console.log(`    output: ${printable(JSON.stringify(record.output) ?? '')}`);
}
