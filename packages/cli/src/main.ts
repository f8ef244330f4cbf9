import './sealed-start.ts';
import { GoondanError, guardProcessErrors, helpUrlFor, redactKnownSecrets } from '@goondan/core';
import { approvalsCommand, approvalsHelp } from './commands/approvals.ts';
import { auditCommand, auditHelp } from './commands/audit.ts';
import { authCommand, authHelp } from './commands/auth.ts';
import { changesCommand, changesHelp } from './commands/changes.ts';
import { chatCommand, chatHelp } from './commands/chat.ts';
import { initCommand, initHelp } from './commands/init.ts';
import { mcpCommand, mcpHelp } from './commands/mcp.ts';
import { psCommand, psHelp } from './commands/ps.ts';
import { runCommand, runHelp } from './commands/run.ts';
import { schedulesCommand, schedulesHelp } from './commands/schedules.ts';
import { serveCommand, serveHelp } from './commands/serve.ts';
import { toolsCommand, toolsHelp } from './commands/tools.ts';
import { traceCommand, traceHelp } from './commands/trace.ts';
import { typesCommand, typesHelp } from './commands/types.ts';
import { validateCommand, validateHelp } from './commands/validate.ts';
import { exitWhenDone } from './exit-when-done.ts';
import { redactForOutput } from './redact-output.ts';
import { paint, UsageError, useColor } from './terminal.ts';

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
  trace                 show the last turns as a tree of steps, model calls and tool calls
  audit                 the audit log of tool calls: decision, approval, status, duration
  approvals             list and answer tool calls that wait for a person's approval
  ps                    the agent processes of running swarms: state, pid, queue, turns, restarts
  changes               bundle changesets: list the revisions agents activated, revert one
  mcp serve             offer an agent's tools to MCP clients (stdio, or --http PORT)
  serve                 keep the bundle's agents running: scheduler, channels, an HTTP API (OpenAI-compatible)
  auth                  OAuth grants of the bundle's OAuthApps: list, login APP, logout APP
  schedules             alarms and recurring wake-ups of agents: list, add, cancel

Run 'gdn <command> --help' for a command's options. Docs: docs/cli.md`;

const commands: Record<string, { run: (argv: string[]) => Promise<number>; help: string }> = {
  validate: { run: validateCommand, help: validateHelp },
  tools: { run: toolsCommand, help: toolsHelp },
  run: { run: runCommand, help: runHelp },
  chat: { run: chatCommand, help: chatHelp },
  trace: { run: traceCommand, help: traceHelp },
  audit: { run: auditCommand, help: auditHelp },
  approvals: { run: approvalsCommand, help: approvalsHelp },
  ps: { run: psCommand, help: psHelp },
  changes: { run: changesCommand, help: changesHelp },
  mcp: { run: mcpCommand, help: mcpHelp },
  serve: { run: serveCommand, help: serveHelp },
  auth: { run: authCommand, help: authHelp },
  schedules: { run: schedulesCommand, help: schedulesHelp },
  init: { run: initCommand, help: initHelp },
  types: { run: typesCommand, help: typesHelp },
};

// A tool's stray timer or unawaited promise must not end `gdn run`/`chat`: it fails that call (E_TOOL) or is logged.
guardProcessErrors({ log: (line) => console.error(`gdn: ${redactForOutput(line)}`) });

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest[0] && commands[rest[0]]) {
    console.log(commands[rest[0]]!.help);
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(mainHelp);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    console.log('gdn 0.1.0');
    return 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(`gdn: unknown command '${name}'. Commands: ${Object.keys(commands).join(', ')}.`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (thrown) {
    const color = useColor(process.stderr);
    if (thrown instanceof UsageError) {
      console.error(`gdn ${thrown.command}: ${thrown.message}\nRun 'gdn ${thrown.command} --help' for usage.`);
      return 2;
    }
    if (thrown instanceof GoondanError) {
      // A failure can quote what failed (a URL with credentials, a server's answer echoing a key). The suggestion is
      // our own advice, which names flags such as `--token`: only known secret values are masked there.
      console.error(`${paint(thrown.code, 'red', color)} ${redactForOutput(thrown.message)}`);
      console.error(`  suggestion: ${redactKnownSecrets(thrown.suggestion)}`);
      console.error(`  help: ${helpUrlFor(thrown.code)}`);
      return 1;
    }
    console.error(`gdn: unexpected failure: ${redactForOutput((thrown as Error)?.stack ?? String(thrown))}`);
    return 1;
  }
}

await exitWhenDone(await main(process.argv.slice(2)));
