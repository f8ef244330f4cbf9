import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import {
  type ApprovalGate,
  type ApprovalResolution,
  COMMAND_LINE_SOURCE,
  createAgentToolset,
  createMessage,
  createScriptedModel,
  instancePaths,
  type JobTable,
  type JsonSchemaObject,
  openAgentInstance,
  selectAgent,
  type ToolCall,
  type ToolCatalog,
  type ToolCatalogItem,
  type ToolResult,
  type UnavailableTool,
} from '@goondan/core';
import { parseCommandArgs, unknownSubcommand } from '../cli-args.ts';
import { commandHelpText } from '../docs-link.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { openBundle } from '../open-bundle.ts';
import { readStandardInput } from '../read-standard-input.ts';
import { stderrLogger } from '../stderr-logger.ts';
import { paint, printable, UsageError, useColor } from '../terminal.ts';
import { printProblems } from './validate.ts';

export const toolsHelp = `Usage: gdn tools <list|call> [options]

  gdn tools list [--agent A] [--all] [--json]
      The catalog the agent's model would see at its next Step (extensions loaded, step middleware such as
      tool exposure applied): full name (resource__export), description, parameters and source.
      Without agents in the bundle, every Tool the bundle declares. Tools whose backend is missing on this
      machine (their spec.requires is unmet) are never offered; they are counted at the end.
      --all         also list every tool this machine cannot offer (libraries' too) and why

  gdn tools call <name> '<json-args>' [--agent A] [--workdir D] [--instance K] [--wait] [--yes]
      Calls one tool through the real pipeline (catalog guard, permissions, argument validation, toolCall
      middleware, handler) with no model involved, and prints the ToolResult as JSON. The call counts as made by
      the person at the command line (source user:cli) and is written to the audit log. <json-args> is {} when
      left out; - reads it from standard input (up to 16 MiB: no quoting, no command-line length limit).
      --yes         approve the call if the agent's permissions say ask (on a terminal you are asked instead)
      --workdir D   the tool's workdir (default: <bundle>/.goondan/workspaces/<agent>/<instance>)
      --instance K  instance key for the default workdir (default: "default")
      --wait        when the result is pending, wait for the job and print its final result

Common options:
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)

Exit status: 0 when the result is ok (or pending), 1 when it is an error or the bundle is invalid, 2 on a usage error.`;

export async function toolsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(commandHelpText('tools', toolsHelp));
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'list') return toolsList(rest);
  if (sub === 'call') return toolsCall(rest);
  throw unknownSubcommand('tools', sub, ['list', 'call']);
}

/** Tools of the agent as its next Step would have them: extensions loaded, step middleware applied. */
interface OpenedTools {
  agentName: string | null;
  /** Category and the permissions' decision for a call from the command line. */
  permission: (name: string) => { category: string; decision: string; rule: string } | null;
  /** Tools not offered on this machine (spec.requires unmet), with why. */
  unavailable: () => UnavailableTool[];
  catalog: () => Promise<ToolCatalog>;
  call: (
    call: ToolCall,
    options: { workdir?: string; signal: AbortSignal; approvals: ApprovalGate },
  ) => Promise<ToolResult>;
  jobs: JobTable;
  close: () => Promise<void>;
}

async function openTools(flags: { bundle?: string; agent?: string; instance?: string }): Promise<OpenedTools | null> {
  const opened = await openBundle(flags.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return null;
  }
  const instanceKey = flags.instance ?? 'default';
  const agent = selectAgent(opened.bundle, flags.agent);
  if (agent) {
    // The real instance (state, workspace, extensions), with a placeholder model: these commands never call one.
    const instance = await openAgentInstance({
      bundle: opened.bundle,
      handlers: opened.handlers,
      agent,
      instanceKey,
      model: createScriptedModel([], { modelId: 'tools-only' }),
      deliverJobCompletions: false,
      // Calls tools beside a running `gdn run`/`chat` of the instance: reads its conversation, never writes it.
      writer: false,
      logger: stderrLogger,
    });
    return {
      agentName: agent.metadata.name,
      permission: (name) => instance.permissionOf(name),
      unavailable: () => instance.unavailableTools(),
      catalog: () => instance.previewCatalog(),
      call: (call, options) => instance.callTool(call, options),
      jobs: instance.jobs,
      close: () => instance.close(),
    };
  }
  // Tool-development mode: a bundle without agents offers every Tool it declares.
  const toolset = createAgentToolset({ bundle: opened.bundle, handlers: opened.handlers, agent: null });
  const { workdir } = instancePaths({ rootDir: opened.bundle.rootDir, agentName: 'cli', instanceKey });
  return {
    agentName: null,
    permission: (name) => toolset.executor.verdictFor(name, COMMAND_LINE_SOURCE),
    unavailable: () => [...(toolset.unavailable?.values() ?? [])],
    catalog: async () => toolset.catalogBuilder.build(),
    call: (call, options) =>
      toolset.executor.execute(call, {
        catalog: toolset.catalogBuilder.build(),
        scope: {
          agentName: 'cli',
          instanceKey,
          turnId: `turn_cli_${Date.now().toString(36)}`,
          message: createMessage(
            {
              role: 'assistant',
              content: [{ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args }],
            },
            { type: 'assistant' },
          ),
          workdir: options.workdir ?? mkdirp(workdir),
          logger: stderrLogger,
          signal: options.signal,
          source: COMMAND_LINE_SOURCE,
          approvals: options.approvals,
        },
      }),
    jobs: toolset.executor.jobs,
    close: async () => {},
  };
}

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function toolsList(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'tools',
    argv,
    spec: { agent: { type: 'string' }, json: { type: 'boolean' }, all: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(toolsHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'tools');
  if (values.json) reserveStdoutForJson();
  const opened = await openTools(values);
  if (!opened) return 1;
  let catalog: ToolCatalog;
  try {
    catalog = await opened.catalog();
  } finally {
    await opened.close();
  }
  // Without --all: the tools the catalog would hold if their backend were here; with it, every Tool loaded.
  const unavailable = opened.unavailable().filter((tool) => values.all === true || tool.declared);
  if (values.json) {
    const tools = catalog.items.map((item) => ({ ...item, permission: opened.permission(item.name) }));
    printJson({ agent: opened.agentName, tools, unavailable });
    return 0;
  }
  const color = useColor();
  const who = opened.agentName ? `Agent/${opened.agentName}` : 'no agent: every Tool the bundle declares';
  console.log(paint(`${catalog.size} tool${catalog.size === 1 ? '' : 's'} in the catalog (${who})`, 'bold', color));
  for (const item of catalog.items) printItem(item, opened.permission(item.name), color);
  printUnavailable(unavailable, { all: values.all === true, color });
  return 0;
}

/** The groups this machine cannot offer, one line each with what is missing (names only without --all). */
function printUnavailable(tools: UnavailableTool[], options: { all: boolean; color: boolean }): void {
  if (tools.length === 0) return;
  const { color } = options;
  const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
  if (!options.all) {
    const names = printable(tools.map((tool) => tool.name).join(', '));
    console.log(`\n${paint(`${count} not offered on this machine: ${names}`, 'yellow', color)}`);
    console.log(paint('  gdn tools list --all says why.', 'dim', color));
    return;
  }
  console.log(`\n${paint(`Not offered on this machine (${count}):`, 'bold', color)}`);
  const groups = new Map<string, UnavailableTool[]>();
  for (const tool of tools) {
    const key = `${tool.resource}\0${tool.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), tool]);
  }
  for (const group of groups.values()) {
    const first = group[0]!;
    // What the bundle's spec.requires says (a bundle from someone else): without control characters.
    console.log(`\n${paint(printable(group.map((tool) => tool.name).join(', ')), 'cyan', color)}`);
    console.log(`  ${printable(first.reason)}`);
    if (first.install) console.log(`  ${paint(`install: ${printable(first.install)}`, 'dim', color)}`);
  }
}

function printItem(
  item: ToolCatalogItem,
  permission: { category: string; decision: string } | null,
  color: boolean,
): void {
  const source = printable(item.source ? `${item.source.type}:${item.source.name}` : 'unknown');
  const risk = permission
    ? `  ${paint(printable(`${permission.category} · ${permission.decision}`), permission.decision === 'allow' ? 'dim' : 'yellow', color)}`
    : '';
  console.log(`\n${paint(printable(item.name), 'cyan', color)}  ${paint(`[${source}]`, 'dim', color)}${risk}`);
  // Descriptions are what a tool's author wrote, an MCP server's too: without control characters on a terminal.
  if (item.description) console.log(`  ${printable(item.description)}`);
  for (const line of describeParameters(item.parameters)) console.log(`  ${printable(line)}`);
}

function describeParameters(schema: JsonSchemaObject | undefined): string[] {
  const properties = schema?.properties ?? {};
  const names = Object.keys(properties);
  if (names.length === 0) return ['(no parameters)'];
  const required = new Set(schema?.required ?? []);
  return names.map((name) => {
    const property = properties[name] ?? {};
    const type =
      typeof property.type === 'string'
        ? property.type
        : Array.isArray(property.type)
          ? property.type.join('|')
          : 'any';
    const description = typeof property.description === 'string' ? `  ${property.description}` : '';
    return `- ${name}${required.has(name) ? '' : '?'}: ${type}${description}`;
  });
}

async function toolsCall(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'tools',
    argv,
    spec: {
      agent: { type: 'string' },
      workdir: { type: 'string' },
      instance: { type: 'string' },
      wait: { type: 'boolean' },
      yes: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(toolsHelp);
    return 0;
  }
  const [name, rawArgs = '{}', ...extra] = positionals;
  if (!name) throw new UsageError("missing the tool name: gdn tools call <name> '<json-args>'", 'tools');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}' (quote the JSON arguments)`, 'tools');
  // '-': the arguments are standard input (a pipe, a file: no shell quoting, no limit of the command line's).
  const fromStdin = rawArgs === '-';
  const args = fromStdin ? await readStandardInput('tools', 'the JSON arguments') : rawArgs;
  reserveStdoutForJson();
  const opened = await openTools(values);
  if (!opened) return 1;
  const turn = new AbortController();
  process.once('SIGINT', () => turn.abort('interrupted'));
  const call: ToolCall = { id: `call_cli_${Date.now().toString(36)}`, name, args };
  const workdir = values.workdir ? mkdirp(resolve(values.workdir)) : undefined;
  let final: ToolResult;
  try {
    const result = await opened.call(call, {
      ...(workdir ? { workdir } : {}),
      signal: turn.signal,
      approvals: commandLineApprovals({
        yes: values.yes === true,
        terminal: process.stdin.isTTY === true && !fromStdin,
      }),
    });
    final = result.status === 'pending' && values.wait ? await waitForJob(opened.jobs, result.handle!) : result;
  } finally {
    await opened.close();
  }
  printJson(final);
  return final.status === 'error' ? 1 : 0;
}

/**
 * `ask` calls of `gdn tools call`: the person running the command decides — `--yes` approves, a terminal asks
 * (not one the arguments were read from: its input has ended), anything else is refused (nobody to ask) with a hint.
 */
function commandLineApprovals(options: { yes: boolean; terminal: boolean }): ApprovalGate {
  const answered = (approved: boolean, by: string, reason: string | null): ApprovalResolution => ({
    outcome: approved ? 'approved' : 'denied',
    id: null,
    scope: approved ? 'once' : null,
    by,
    reason,
  });
  return {
    async request(request) {
      if (options.yes) return answered(true, 'cli --yes', null);
      if (!options.terminal)
        return answered(
          false,
          'gdn tools call (no terminal to ask)',
          `it needs approval (${request.rule}); run gdn tools call with --yes to approve it`,
        );
      const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      const line = await new Promise<string>((resolveLine) =>
        lines.question(printable(`${request.toolName} needs approval (${request.rule}). Run it? [y/N] `), resolveLine),
      );
      lines.close();
      const approved = /^y(es)?$/i.test(line.trim());
      return answered(approved, 'user', approved ? null : 'not approved at the prompt');
    },
  };
}

function waitForJob(jobs: JobTable, handle: string): Promise<ToolResult> {
  return new Promise((resolveResult) => {
    const current = jobs.poll(handle);
    if (current.status !== 'pending') return resolveResult(current);
    jobs.onComplete((event) => {
      if (event.handle === handle) resolveResult(event.result);
    });
  });
}
