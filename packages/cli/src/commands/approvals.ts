import {
  type ApprovalAnswer,
  type ApprovalRecord,
  ApprovalStore,
  GoondanError,
  type InstanceDatabaseFile,
  openInstanceDatabase,
} from '@goondan/core';
import { describeResolution } from '../approval-prompt.ts';
import { parseCommandArgs, unknownSubcommand } from '../cli-args.ts';
import { commandHelpText } from '../docs-link.ts';
import { instanceDatabasesFor } from '../instance-databases.ts';
import { notWritten, redactedAnswer } from '../serve/approval-routes.ts';
import { paint, printable, UsageError, useColor } from '../terminal.ts';
import { shortArgs } from '../tool-call-printer.ts';

export const approvalsHelp = `Usage: gdn approvals <list|approve|deny> [options]

Tool calls that wait for a person (the agent's spec.permissions say ask) are stored in their instance's
database until answered, expired or cancelled. These commands answer them from any terminal, also while the
agent is not running: a waiting agent picks the answer up at once; a stopped one applies it when its turn resumes
(the next 'gdn chat', 'gdn run', or the swarm's restart of the agent).

  gdn approvals list [--all] [--agent A] [--instance K] [--json]
      Pending approvals of every instance of the bundle, oldest first (--all: answered ones too).

  gdn approvals approve ID [--conversation] [--by NAME] [--agent A] [--instance K]
      Approve the call once; --conversation also approves every later call of that tool in the conversation
      (in turns from the same source).

  gdn approvals deny ID [--reason TEXT] [--by NAME] [--agent A] [--instance K]
      Deny the call; the model receives E_APPROVAL_DENIED with the reason (secrets in it are redacted).

Common options:
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)

Exit status: 0 done, 1 no such pending approval (E_APPROVAL_NOT_FOUND) or an id held by several instances
(E_APPROVAL_AMBIGUOUS: name one with --agent and --instance), 2 usage error.`;

export async function approvalsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(commandHelpText('approvals', approvalsHelp));
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'list') return listApprovals(rest);
  if (sub === 'approve' || sub === 'deny') return answerApproval(sub, rest);
  throw unknownSubcommand('approvals', sub, ['list', 'approve', 'deny']);
}

/** `forReading` for what only reads: state that can be read but not written (read-only, another user's) is listed. */
function withStore<T>(file: InstanceDatabaseFile, use: (store: ApprovalStore) => T, forReading = false): T {
  const db = openInstanceDatabase(file.databaseFile, { forReading });
  try {
    return use(new ApprovalStore(db));
  } finally {
    db.close();
  }
}

async function listApprovals(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'approvals',
    argv,
    spec: {
      agent: { type: 'string' },
      instance: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(approvalsHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'approvals');
  const { chosen } = instanceDatabasesFor(values);
  const now = Date.now();
  const records = chosen
    .flatMap((file) =>
      withStore(file, (store) => store.list(values.all ? { limit: 1000 } : { status: 'pending', limit: 1000 }), true),
    )
    // A pending approval past its expiry is expired, whether or not its agent has noticed yet.
    .map((record) =>
      record.status === 'pending' && record.expiresAt <= now ? { ...record, status: 'expired' as const } : record,
    )
    .filter((record) => values.all || record.status === 'pending')
    .sort((a, b) => a.createdAt - b.createdAt);
  if (values.json) {
    console.log(JSON.stringify(records, null, 2));
    return 0;
  }
  if (records.length === 0) {
    console.log(values.all ? 'No approvals yet.' : 'No approvals are waiting.');
    return 0;
  }
  const color = useColor();
  for (const record of records) printRecord(record, color, now);
  return 0;
}

function printRecord(record: ApprovalRecord, color: boolean, now: number): void {
  const state =
    record.status === 'pending'
      ? paint(`pending, expires in ${Math.max(0, Math.round((record.expiresAt - now) / 1000))}s`, 'yellow', color)
      : describeResolution(record, false).replace(/^\s*↳ \S+ /, '');
  console.log(
    `${paint(record.id, 'bold', color)}  ${printable(`${record.agent}/${record.instanceKey}`)}  ${printable(record.toolName)} (${record.category})  ${state}`,
  );
  console.log(`    ${shortArgs(record.args, 200)}`);
  console.log(
    paint(
      printable(
        `    ${record.rule}; asked ${new Date(record.createdAt).toISOString()} in a turn from ${record.source.kind}:${record.source.name}`,
      ),
      'dim',
      color,
    ),
  );
}

async function answerApproval(action: 'approve' | 'deny', argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'approvals',
    argv,
    spec: {
      conversation: { type: 'boolean' },
      reason: { type: 'string' },
      by: { type: 'string' },
      agent: { type: 'string' },
      instance: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(approvalsHelp);
    return 0;
  }
  const [id, ...extra] = positionals;
  if (!id) throw new UsageError(`missing the approval id: gdn approvals ${action} ID`, 'approvals');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`, 'approvals');
  if (action === 'deny' && values.conversation) throw new UsageError('--conversation goes with approve', 'approvals');
  if (values.by !== undefined && values.by.trim() === '')
    throw new UsageError('--by needs a name (who answered is recorded in the audit log)', 'approvals');
  if (action === 'approve' && values.reason !== undefined)
    throw new UsageError('--reason goes with deny (the model reads it)', 'approvals');
  const given: ApprovalAnswer =
    action === 'approve'
      ? { action, scope: values.conversation ? 'conversation' : 'once', by: values.by ?? 'user' }
      : { action, by: values.by ?? 'user', ...(values.reason ? { reason: values.reason } : {}) };
  // What is typed here is stored as the call's arguments are: with secrets redacted (docs/audit.md#redaction).
  const answer = redactedAnswer(given);
  const { chosen } = instanceDatabasesFor(values);
  // Every instance that holds the id: an instance directory copied holds the same pending approvals, and one
  // answer must not run the call in two instances.
  const holders = chosen.filter((file) => withStore(file, (store) => store.get(id) !== null, true));
  const shown = shortId(id);
  if (holders.length > 1) {
    const addresses = holders.map((file) => `${file.agentName}/${file.instanceKey}`);
    throw new GoondanError(
      'E_APPROVAL_AMBIGUOUS',
      `Approval '${shown}' is in ${holders.length} instances (${addresses.join(', ')}); nothing was answered.`,
      {
        suggestion: `Name one: gdn approvals ${action} ${shown} --agent ${holders[0]!.agentName} --instance ${holders[0]!.instanceKey}.`,
      },
    );
  }
  const [holder] = holders;
  if (!holder) throw new GoondanError('E_APPROVAL_NOT_FOUND', `No approval '${shown}' in any instance of this bundle.`);
  const address = `${holder.agentName}/${holder.instanceKey}`;
  const result = withStore(holder, (store) => {
    try {
      return store.answerPending(id, answer, address);
    } catch (thrown) {
      throw thrown instanceof GoondanError ? thrown : notWritten(shown, address, thrown);
    }
  });
  console.log(describeResolution(result, useColor()).trim());
  return 0;
}

/** Longest part of an unknown id echoed back: an id of megabytes is not printed whole. */
const MAX_SHOWN_ID_CHARS = 100;

function shortId(id: string): string {
  return id.length > MAX_SHOWN_ID_CHARS ? `${id.slice(0, MAX_SHOWN_ID_CHARS)}… (${id.length} characters)` : id;
}
