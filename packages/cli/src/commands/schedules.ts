import {
  type Bundle,
  closestName,
  GoondanError,
  type MissedPolicy,
  openScheduleStore,
  quotedValue,
  type ScheduleRecord,
  Scheduler,
  scheduleStorePath,
} from '@goondan/core';
import { scheduleText } from '../chat-scheduler.ts';
import { parseCommandArgs, unknownSubcommand } from '../cli-args.ts';
import { commandHelpText } from '../docs-link.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { openBundle } from '../open-bundle.ts';
import { chooseAgent } from '../open-instance.ts';
import { paint, UsageError, useColor } from '../terminal.ts';
import { printProblems } from './validate.ts';

export const schedulesHelp = `Usage: gdn schedules <list|add|cancel> [options]

Schedules wake an agent instance at a time: it gets a 'schedule.fired' event from system:scheduler (an unattended
turn; docs/scheduler.md). They live in <bundle>/.goondan/schedules.db and fire while 'gdn serve' or 'gdn chat' runs;
what came due while nothing ran fires once at the next start, marked late (or is skipped, --missed skip).

  gdn schedules list [--all] [--agent A] [--instance K] [--json]
      Active schedules by next due time (--all: finished and cancelled ones too).

  gdn schedules add (--at TIME | --in DELAY | --rrule RULE | --cron EXPR) --input TEXT [--tz ZONE]
                    [--agent A] [--instance K] [--label TEXT] [--missed POLICY] [--json]
      --at TIME        ISO 8601: 2026-05-01T09:00:00+09:00, or 2026-05-01T09:00 read in --tz
      --in DELAY       from now: 90s, 10m, 2h, 1d (a bare number is seconds)
      --rrule RULE     RFC 5545, e.g. 'FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9;BYMINUTE=0' (starts now unless a DTSTART line is given)
      --cron EXPR      5 fields (6 with seconds first), e.g. '30 9 * * 1-5'
      --tz ZONE        IANA time zone the rule and a local --at are read in (default UTC)
      --agent A        the agent it wakes (default: the Swarm's entryAgent, or the only Agent)
      --instance K     the instance (default "default")
      --label TEXT     a short name shown in lists and in the event (default: the start of --input)
      --input TEXT     what the agent reads when it fires
      --missed POLICY  fire-once-late (default) or skip: what a firing missed while nothing ran does

  gdn schedules cancel ID
      Cancel an active schedule; firings already under way are still delivered.

Common options:
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)
  --json         print the result as JSON

Exit status: 0 done, 1 refused (E_SCHEDULE_INVALID, E_SCHEDULE_IN_PAST, E_SCHEDULE_TIME_ZONE,
E_SCHEDULE_NOT_FOUND, E_AGENT_UNKNOWN), 2 usage error.`;

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `10m`, `2h`, `1d`, `1500ms`, or a bare number of seconds, in ms. */
export function parseDelay(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  if (!match) throw new GoondanError('E_SCHEDULE_INVALID', `--in '${text}' is not a delay such as 90s, 10m, 2h or 1d.`);
  return Number(match[1]) * units[(match[2] ?? 's').toLowerCase()]!;
}

function agentNames(bundle: Bundle): string[] {
  return [...bundle.resources.values()].filter((resource) => resource.kind === 'Agent').map((r) => r.metadata.name);
}

/**
 * E_AGENT_UNKNOWN for `--agent NAME` that is no Agent of the bundle, told to the person at the command line: the
 * bundle's agents, the closest one, and what to do.
 */
function checkAgentFlag(bundle: Bundle, agent: string | undefined): void {
  const agents = agentNames(bundle);
  if (agent === undefined || agents.includes(agent)) return;
  const near = closestName(agent, agents);
  const listed = agents.length > 0 ? `its agents: ${agents.join(', ')}` : 'it declares no Agent';
  throw new GoondanError(
    'E_AGENT_UNKNOWN',
    `No agent ${quotedValue(agent)} in the bundle at ${bundle.rootDir}${near ? ` (did you mean '${near}'?)` : ''}; ${listed}.`,
    {
      suggestion:
        agents.length > 0
          ? `Pass --agent one of the bundle's agents (${agents.join(', ')}), or declare an Agent named ${quotedValue(agent)} in goondan.yaml first.`
          : `Declare an Agent named ${quotedValue(agent)} in goondan.yaml first (gdn validate checks it), then add the schedule.`,
    },
  );
}

function describe(record: ScheduleRecord, color: boolean): string {
  const next = record.nextDueAt === null ? record.status : new Date(record.nextDueAt).toISOString();
  const rule = record.kind === 'at' ? 'once' : `${record.kind} ${record.expression.split('\n').at(-1)}`;
  // What an agent or an API client stored is shown, not obeyed: no escape sequence or line break reaches the terminal.
  const text = `${record.agent}/${record.instanceKey}  next ${next}  ${rule} (${record.timeZone})  ${record.label}`;
  return `${paint(scheduleText(record.id), 'bold', color)}  ${scheduleText(text)}`;
}

export async function schedulesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(commandHelpText('schedules', schedulesHelp));
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'list' && sub !== 'add' && sub !== 'cancel')
    throw unknownSubcommand('schedules', sub, ['list', 'add', 'cancel']);
  const { values, positionals } = parseCommandArgs({
    command: 'schedules',
    argv: rest,
    spec: {
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      agent: { type: 'string' },
      instance: { type: 'string' },
      at: { type: 'string' },
      in: { type: 'string' },
      rrule: { type: 'string' },
      cron: { type: 'string' },
      tz: { type: 'string' },
      label: { type: 'string' },
      input: { type: 'string' },
      missed: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(schedulesHelp);
    return 0;
  }
  if (values.json) reserveStdoutForJson();
  const color = useColor(process.stdout);
  const opened = await openBundle(values.bundle, { importHandlers: false });
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  const bundle = opened.bundle;
  const store = openScheduleStore({ path: scheduleStorePath({ rootDir: bundle.rootDir }) });
  try {
    const scheduler = new Scheduler({ store, deliver: async () => {}, agents: agentNames(bundle) });
    if (sub === 'list') {
      if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'schedules');
      const found = scheduler.list({
        status: values.all ? 'all' : 'active',
        ...(values.agent ? { agent: values.agent } : {}),
        ...(values.instance ? { instanceKey: values.instance } : {}),
      });
      if (values.json) printJson(found);
      else if (found.length === 0) console.log(values.all ? 'No schedules.' : 'No active schedules.');
      else for (const record of found) console.log(describe(record, color));
      return 0;
    }
    if (sub === 'cancel') {
      const id = positionals[0];
      if (!id || positionals.length > 1) throw new UsageError('cancel takes one schedule id', 'schedules');
      if (!scheduler.cancel(id)) {
        const known = store.get(id);
        throw new GoondanError(
          'E_SCHEDULE_NOT_FOUND',
          known
            ? `Schedule '${id}' is already ${known.status}.`
            : `No active schedule '${id.length > 80 ? `${id.slice(0, 80)}…` : id}' in this bundle.`,
        );
      }
      if (values.json) printJson(store.get(id));
      else console.log(`cancelled ${id}`);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'schedules');
    checkAgentFlag(bundle, values.agent);
    const record = scheduler.add({
      agent: values.agent ?? chooseAgent(bundle, undefined).metadata.name,
      instanceKey: values.instance ?? 'default',
      ...(values.at !== undefined ? { at: values.at } : {}),
      ...(values.in !== undefined ? { inMs: parseDelay(values.in) } : {}),
      ...(values.rrule !== undefined ? { rrule: values.rrule } : {}),
      ...(values.cron !== undefined ? { cron: values.cron } : {}),
      ...(values.tz !== undefined ? { timeZone: values.tz } : {}),
      ...(values.label !== undefined ? { label: values.label } : {}),
      ...(values.input !== undefined ? { input: values.input } : {}),
      ...(values.missed !== undefined ? { missedPolicy: values.missed as MissedPolicy } : {}),
    });
    if (values.json) printJson(record);
    else console.log(`scheduled ${describe(record, color)}`);
    return 0;
  } finally {
    store.close();
  }
}
