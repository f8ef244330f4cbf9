import { parseCommandArgs, unknownSubcommand } from '../cli-args.ts';
import { commandHelpText } from '../docs-link.ts';
import { MAX_HTTP_BODY_BYTES } from '../mcp-serve/max-http-body-bytes.ts';
import { openBundle } from '../open-bundle.ts';
import { reserveStdout } from '../reserve-stdout.ts';
import { UsageError, useColor } from '../terminal.ts';
import { printProblems } from './validate.ts';

export const mcpHelp = `Usage: gdn mcp serve [--agent A] [--http PORT [--allow-origin LIST]] [--instance K] [--bundle DIR]

  Offers the agent's tool catalog to MCP clients: what its model would see at the next Step, exactly what
  'gdn tools list' shows (the agent instance is opened, so tools of its extensions, such as mcp, count).
  Each tools/call runs through the real pipeline — catalog guard, argument validation, toolCall middleware,
  handler — with the instance workspace (<bundle>/.goondan/workspaces/<agent>/<instance>) as the workdir.

  --agent A      the agent whose catalog is served (default: the only Agent; without agents, every Tool)
  --http PORT    serve streamable HTTP on http://127.0.0.1:PORT/mcp (0: any free port, printed on stderr)
                 instead of stdio. Requests whose Origin header is not a loopback origin are refused (403);
                 bodies over ${MAX_HTTP_BODY_BYTES} bytes (4 MiB) get 413
  --allow-origin LIST  with --http: more origins allowed, comma-separated (https://app.example.com), or *
  --instance K   instance key of the workspace (default: "default")

  In stdio mode stdout carries only the protocol; logs go to stderr. No model is called.

  Results: ok → the output as text (JSON unless it is a string) and as structuredContent when it is an object;
  error → isError with the text '<CODE>: <message>', then the suggestion and help link. Each tool carries
  annotations from its category (safe: readOnlyHint; restricted: destructiveHint). A call the permissions make
  wait for approval asks the client (MCP elicitation) when it supports it, and 'gdn approvals' in any case.

Example client configuration (Claude Desktop, Cursor, ...):
  { "command": "gdn", "args": ["mcp", "serve", "--bundle", "/path/to/bundle"] }`;

export async function mcpCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(commandHelpText('mcp', mcpHelp));
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'serve') throw unknownSubcommand('mcp', sub, ['serve']);
  const { values, positionals } = parseCommandArgs({
    command: 'mcp',
    argv: rest,
    spec: {
      agent: { type: 'string' },
      http: { type: 'string' },
      instance: { type: 'string' },
      'allow-origin': { type: 'string' },
    },
  });
  if (values.help) {
    console.log(mcpHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'mcp');
  const port = values.http === undefined ? undefined : parsePort(values.http);
  if (values['allow-origin'] !== undefined && port === undefined)
    throw new UsageError('--allow-origin applies to --http only', 'mcp');
  const allowedOrigins = (values['allow-origin'] ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  // stdout belongs to the protocol in stdio mode: anything a tool or module prints, from its top level on, goes to
  // stderr (before the bundle's modules are imported).
  if (port === undefined) reserveStdout();
  const opened = await openBundle(values.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  // The MCP SDK is loaded here, not at start-up: no other command pays for it.
  const { serveMcp } = await import('../mcp-serve/serve-mcp.ts');
  return serveMcp({
    bundle: opened.bundle,
    handlers: opened.handlers,
    agentName: values.agent,
    instanceKey: values.instance ?? 'default',
    port,
    allowedOrigins,
  });
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new UsageError(`--http needs a port from 0 to 65535, got '${text}'`, 'mcp');
  return port;
}
