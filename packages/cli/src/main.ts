import './sealed-start.ts';
import { asksForHelp, commandHelpText, docsLink } from './docs-link.ts';
import { exitWhenDone } from './exit-when-done.ts';
import { UsageError, usePlainConsole } from './terminal.ts';

// Before anything prints: Bun's console would paint on a terminal against TERM=dumb and FORCE_COLOR=0.
usePlainConsole();

const mainHelp = `gdn — declare tools once in YAML, see exactly what an agent sees, call them through the real pipeline.

Usage: gdn <command> [options]

Commands:
  init [DIR]            create a bundle: goondan.yaml, a typed tool, tsconfig, package.json, README
  validate [DIR]        check a bundle and report every problem at once
  types                 write goondan-tools.d.ts: each tool's input type, from its parameters schema
  tools list            the catalog an agent would see
  tools call NAME ARGS  call one tool through guard, validation, middleware and handler
  run --input TEXT      run one turn of an agent and print the reply
  chat                  chat with an agent in the terminal
  trace                 show the last turns as a tree of steps, model calls and tool calls (--serve: in a browser)
  audit                 the audit log of tool calls: decision, approval, status, duration
  approvals             list and answer tool calls that wait for a person's approval
  ps                    the agent processes of running swarms: state, pid, queue, turns, restarts
  changes               bundle changesets: list the revisions agents activated, revert one
  mcp serve             offer an agent's tools to MCP clients (stdio, or --http PORT)
  serve                 keep the bundle's agents running: scheduler, channels, an HTTP API (OpenAI-compatible)
  worker                host agent processes for a swarm served on another machine (NATS: gdn serve --nats)
  auth                  OAuth grants of the bundle's OAuthApps: list, login APP, logout APP
  schedules             alarms and recurring wake-ups of agents: list, add, cancel
  migrate               rewrite a goondan.yaml written for older Goondan runtimes (--dry-run lists the changes)

Run 'gdn <command> --help' for a command's options. Docs: ${docsLink('cli.md')}`;

interface Command {
  run: (argv: string[]) => Promise<number>;
  help: string;
}

// Each command is imported only when it runs: `gdn --version` and `gdn --help` load none, and a command does not
// pay for the others' dependencies (the core barrel, the AI SDK and the providers take most of a second to load).
const commands: Record<string, () => Promise<Command>> = {
  validate: () => import('./commands/validate.ts').then((m) => ({ run: m.validateCommand, help: m.validateHelp })),
  tools: () => import('./commands/tools.ts').then((m) => ({ run: m.toolsCommand, help: m.toolsHelp })),
  run: () => import('./commands/run.ts').then((m) => ({ run: m.runCommand, help: m.runHelp })),
  chat: () => import('./commands/chat.ts').then((m) => ({ run: m.chatCommand, help: m.chatHelp })),
  trace: () => import('./commands/trace.ts').then((m) => ({ run: m.traceCommand, help: m.traceHelp })),
  audit: () => import('./commands/audit.ts').then((m) => ({ run: m.auditCommand, help: m.auditHelp })),
  approvals: () => import('./commands/approvals.ts').then((m) => ({ run: m.approvalsCommand, help: m.approvalsHelp })),
  ps: () => import('./commands/ps.ts').then((m) => ({ run: m.psCommand, help: m.psHelp })),
  changes: () => import('./commands/changes.ts').then((m) => ({ run: m.changesCommand, help: m.changesHelp })),
  mcp: () => import('./commands/mcp.ts').then((m) => ({ run: m.mcpCommand, help: m.mcpHelp })),
  serve: () => import('./commands/serve.ts').then((m) => ({ run: m.serveCommand, help: m.serveHelp })),
  worker: () => import('./commands/worker.ts').then((m) => ({ run: m.workerCommand, help: m.workerHelp })),
  auth: () => import('./commands/auth.ts').then((m) => ({ run: m.authCommand, help: m.authHelp })),
  schedules: () => import('./commands/schedules.ts').then((m) => ({ run: m.schedulesCommand, help: m.schedulesHelp })),
  init: () => import('./commands/init.ts').then((m) => ({ run: m.initCommand, help: m.initHelp })),
  types: () => import('./commands/types.ts').then((m) => ({ run: m.typesCommand, help: m.typesHelp })),
  migrate: () => import('./commands/migrate.ts').then((m) => ({ run: m.migrateCommand, help: m.migrateHelp })),
};

/** A tool's stray timer or unawaited promise must not end `gdn run`/`chat`: it fails that call (E_TOOL) or is logged. */
async function guardCommand(): Promise<void> {
  const [{ guardProcessErrors }, { redactForOutput }, { printable }] = await Promise.all([
    import('@goondan/core/session'),
    import('./redact-output.ts'),
    import('./terminal.ts'),
  ]);
  // The error is a tool's or an extension's, in its words: without control characters.
  guardProcessErrors({ log: (line) => console.error(`gdn: ${printable(redactForOutput(line))}`) });
}

async function main(argv: string[]): Promise<number> {
  const [first, ...afterFirst] = argv;
  // `gdn help X` is `gdn X --help`: the same help for a command, the same error for a name that is none.
  const askedHelpOf =
    first === 'help' && afterFirst[0] !== undefined && afterFirst[0] !== 'help' ? afterFirst[0] : null;
  const [name, ...rest] = askedHelpOf === null ? argv : [askedHelpOf, '--help'];
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(mainHelp);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    console.log('gdn 0.1.0');
    return 0;
  }
  const load = commands[name];
  if (!load) return reportUnknownCommand(name);
  const command = await load();
  if (asksForHelp(rest)) {
    console.log(commandHelpText(name, command.help));
    return 0;
  }
  await guardCommand();
  let status: number;
  try {
    status = await command.run(rest);
  } catch (thrown) {
    status = (await import('./report-failure.ts')).reportFailure(thrown);
  }
  // Asked for JSON, standard output is one JSON document even when the command failed before printing its own.
  if (status !== 0 && wantsJson(name, rest)) (await import('./json-stdout.ts')).printFailureJson();
  return status;
}

/** The options gdn itself takes before any command. */
const globalOptions = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/**
 * A first argument that names no command: an unknown option when it starts with `-` (the closest of gdn's own
 * options), else an unknown command (the closest command). Exit status 2 either way.
 */
async function reportUnknownCommand(name: string): Promise<number> {
  const [{ reportFailure }, { unknownCommandMessage, unknownOptionMessage }] = await Promise.all([
    import('./report-failure.ts'),
    import('./cli-args.ts'),
  ]);
  if (name.startsWith('-')) {
    return reportFailure(new UsageError(unknownOptionMessage(name, globalOptions), '', 'E_CLI_UNKNOWN_OPTION'));
  }
  return reportFailure(new UsageError(unknownCommandMessage(name, Object.keys(commands)), '', 'E_CLI_UNKNOWN_COMMAND'));
}

/** Whether the command's standard output is a JSON document: --json, --format json, --otlp, and `tools call`. */
function wantsJson(name: string, args: readonly string[]): boolean {
  if (name === 'tools' && args[0] === 'call') return true;
  return args.some(
    (arg, index) =>
      arg === '--json' ||
      arg === '--otlp' ||
      arg === '--format=json' ||
      (arg === '--format' && args[index + 1] === 'json'),
  );
}

await exitWhenDone(await main(process.argv.slice(2)));
