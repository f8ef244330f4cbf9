import { existsSync } from 'node:fs';
import {
  buildSpanTree,
  instancePaths,
  joinSwarmTraces,
  openInstanceDatabase,
  type SpanNode,
  TraceStore,
  toOtlpJson,
} from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { openBundle } from '../open-bundle.ts';
import { chooseAgent } from '../open-instance.ts';
import { paint, printable, UsageError, useColor } from '../terminal.ts';
import { shortArgs } from '../tool-call-printer.ts';
import { wholeNumber } from '../whole-number.ts';
import { printProblems } from './validate.ts';

export const traceHelp = `Usage: gdn trace [--agent A] [--instance K] [--limit N] [--json | --otlp] [--bundle DIR]
       gdn trace --serve [--port P] [--host H] [--token T] [--bundle DIR]

Prints the last turns of an agent instance as a tree: turn → step → model call and tool calls, with
durations, statuses, token usage and error codes. With --serve, serves the web console over the bundle's
stored state instead (docs/console.md): every instance's traces as waterfalls, the audit log,
conversations, schedules, and approvals to answer.

Options:
  --agent A      the agent (default: the Swarm's entryAgent, or the only Agent)
  --instance K   instance key (default: "default")
  --limit N      how many traces, newest last (default: 5)
  --json         the traces with their spans as JSON
  --otlp         the traces in OpenTelemetry OTLP/JSON shape ({"resourceSpans": [...]}) for any OTLP tool;
                 names and attributes follow the GenAI conventions, as the live export does (docs/telemetry.md)
  --serve        serve the web console at http://HOST:PORT/console until Ctrl-C
  --port P       the console's port (default 8788; 0 picks a free one)
  --host H       address to listen on (default 127.0.0.1); any other address needs a token
  --token T      require 'Authorization: Bearer T' (default: the GOONDAN_SERVE_TOKEN environment variable)`;

const DEFAULT_CONSOLE_PORT = 8788;

export async function traceCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'trace',
    argv,
    spec: {
      agent: { type: 'string' },
      instance: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      otlp: { type: 'boolean' },
      serve: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(traceHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'trace');
  if (values.serve) return serveConsole(values);
  for (const flag of ['port', 'host', 'token'] as const) {
    if (values[flag] !== undefined) throw new UsageError(`--${flag} goes with --serve`, 'trace');
  }
  const limit = values.limit === undefined ? 5 : wholeNumber(values.limit, 1);
  if (limit === null) throw new UsageError(`--limit must be a positive integer, got '${values.limit}'`, 'trace');
  if (values.json || values.otlp) reserveStdoutForJson();
  const opened = await openBundle(values.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  const agent = chooseAgent(opened.bundle, values.agent);
  const instanceKey = values.instance ?? 'default';
  const { databaseFile } = instancePaths({
    rootDir: opened.bundle.rootDir,
    agentName: agent.metadata.name,
    instanceKey,
  });
  const own = existsSync(databaseFile)
    ? new TraceStore(openInstanceDatabase(databaseFile, { forReading: true })).recentTraces(limit).reverse()
    : [];
  // A trace that crossed agents (a swarm) gets the spans the other agent instances stored for it.
  const traces = joinSwarmTraces({ rootDir: opened.bundle.rootDir, traces: own, ownDatabase: databaseFile });
  if (values.otlp) {
    // The resource the live export gives the same spans (docs/telemetry.md): service.name, the agent and instance.
    const serviceName = process.env.OTEL_SERVICE_NAME?.trim() || 'goondan';
    const resourceAttributes = { 'goondan.agent': agent.metadata.name, 'goondan.instance': instanceKey };
    printJson(toOtlpJson(traces, { serviceName, resourceAttributes }));
    return 0;
  }
  if (values.json) {
    printJson({ agent: agent.metadata.name, instance: instanceKey, traces });
    return 0;
  }
  if (traces.length === 0) {
    console.log(`No traces yet for ${agent.metadata.name}/${instanceKey}. Run a turn with 'gdn run' or 'gdn chat'.`);
    return 0;
  }
  const color = useColor();
  for (const trace of traces) {
    // A trace id may come from a caller's traceparent (gdn serve): shown like the rest, without control characters.
    console.log(paint(printable(`trace ${trace.traceId}  ${new Date(trace.startedAt).toISOString()}`), 'bold', color));
    const roots = buildSpanTree(trace.spans);
    for (const [index, node] of roots.entries()) printNode(node, '', index === roots.length - 1, color);
    console.log('');
  }
  return 0;
}

function printNode(node: SpanNode, prefix: string, last: boolean, color: boolean): void {
  const { span } = node;
  const duration = span.endedAt === null ? 'running' : `${span.endedAt - span.startedAt}ms`;
  const status = paint(span.status, span.status === 'ok' ? 'green' : span.status === 'error' ? 'red' : 'yellow', color);
  const attributes = span.attributes;
  const details: string[] = [];
  if (
    typeof attributes.inputTokens === 'number' &&
    (attributes.inputTokens > 0 || (attributes.outputTokens as number) > 0)
  ) {
    details.push(`tokens ${attributes.inputTokens}→${attributes.outputTokens}`);
  }
  // A tool may return any code: it is shown like the message, without control characters.
  if (typeof attributes.errorCode === 'string') details.push(paint(printable(attributes.errorCode), 'red', color));
  if (typeof attributes.errorMessage === 'string') details.push(shortArgs(attributes.errorMessage, 100));
  if (span.kind === 'turn' && typeof attributes.status === 'string' && attributes.status !== 'completed')
    details.push(printable(attributes.status));
  console.log(
    `${prefix}${last ? '└─ ' : '├─ '}${printable(span.name)}  ${status}  ${paint(duration, 'dim', color)}${details.length ? `  ${details.join('  ')}` : ''}`,
  );
  const childPrefix = `${prefix}${last ? '   ' : '│  '}`;
  for (const [index, child] of node.children.entries())
    printNode(child, childPrefix, index === node.children.length - 1, color);
}

/** `gdn trace --serve`: the web console over the bundle's stored state, until SIGINT or SIGTERM. */
async function serveConsole(values: {
  bundle?: string;
  port?: string;
  host?: string;
  token?: string;
  json?: boolean;
  otlp?: boolean;
}): Promise<number> {
  if (values.json || values.otlp) throw new UsageError('--serve does not go with --json or --otlp', 'trace');
  const port = values.port === undefined ? DEFAULT_CONSOLE_PORT : wholeNumber(values.port);
  if (port === null || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got '${values.port}'`, 'trace');
  }
  const token = values.token ?? (process.env.GOONDAN_SERVE_TOKEN || undefined);
  const opened = await openBundle(values.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  const { startConsoleServer } = await import('../console/console-server.ts');
  const server = startConsoleServer({
    bundle: opened.bundle,
    hostname: values.host ?? '127.0.0.1',
    port,
    ...(token ? { token } : {}),
  });
  console.error(`[console] ${server.url}/console${token ? ' (bearer token required)' : ''}`);
  const signal = await new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  await server.stop();
  return signal === 'SIGINT' ? 130 : 143;
}
