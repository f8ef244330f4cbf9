import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type AgentToolset,
  createAgentToolset,
  type JsonSchemaObject,
  type Message,
  selectAgent,
  type ToolCatalogItem,
  type ToolResult,
} from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { openBundle } from '../open-bundle.ts';
import { paint, UsageError, useColor } from '../terminal.ts';
import { printProblems } from './validate.ts';

export const toolsHelp = `Usage: gdn tools <list|call> [options]

  gdn tools list [--agent A] [--json]
      The catalog the agent's model would see at a Step: full name (resource__export), description,
      parameters and source. Without agents in the bundle, every Tool the bundle declares.

  gdn tools call <name> '<json-args>' [--agent A] [--workdir D] [--instance K] [--wait]
      Calls one tool through the real pipeline (catalog guard, argument validation, toolCall middleware,
      handler) with no model involved, and prints the ToolResult as JSON.
      --workdir D   the tool's workdir (default: <bundle>/.goondan/workspaces/<agent>/<instance>)
      --instance K  instance key for the default workdir (default: "default")
      --wait        when the result is pending, wait for the job and print its final result

Common options:
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)

Exit status: 0 when the result is ok (or pending), 1 when it is an error or the bundle is invalid, 2 on a usage error.`;

export async function toolsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(toolsHelp);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'list') return toolsList(rest);
  if (sub === 'call') return toolsCall(rest);
  throw new UsageError(`unknown subcommand 'tools ${sub}' (expected list or call)`, 'tools');
}

async function openToolset(bundleFlag: string | undefined, agentName: string | undefined) {
  const opened = await openBundle(bundleFlag);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return null;
  }
  const agent = selectAgent(opened.bundle, agentName);
  return { opened, toolset: createAgentToolset({ bundle: opened.bundle, handlers: opened.handlers, agent }) };
}

async function toolsList(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'tools',
    argv,
    spec: { agent: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(toolsHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'tools');
  const opened = await openToolset(values.bundle, values.agent);
  if (!opened) return 1;
  const catalog = opened.toolset.catalogBuilder.build();
  if (values.json) {
    console.log(JSON.stringify({ agent: opened.toolset.agent?.metadata.name ?? null, tools: catalog.items }, null, 2));
    return 0;
  }
  const color = useColor();
  const who = opened.toolset.agent
    ? `Agent/${opened.toolset.agent.metadata.name}`
    : 'no agent: every Tool the bundle declares';
  console.log(paint(`${catalog.size} tool${catalog.size === 1 ? '' : 's'} in the catalog (${who})`, 'bold', color));
  for (const item of catalog.items) printItem(item, color);
  return 0;
}

function printItem(item: ToolCatalogItem, color: boolean): void {
  const source = item.source ? `${item.source.type}:${item.source.name}` : 'unknown';
  console.log(`\n${paint(item.name, 'cyan', color)}  ${paint(`[${source}]`, 'dim', color)}`);
  if (item.description) console.log(`  ${item.description}`);
  for (const line of describeParameters(item.parameters)) console.log(`  ${line}`);
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
    },
  });
  if (values.help) {
    console.log(toolsHelp);
    return 0;
  }
  const [name, rawArgs = '{}', ...extra] = positionals;
  if (!name) throw new UsageError("missing the tool name: gdn tools call <name> '<json-args>'", 'tools');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}' (quote the JSON arguments)`, 'tools');
  const opened = await openToolset(values.bundle, values.agent);
  if (!opened) return 1;
  const { toolset } = opened;
  const agentName = toolset.agent?.metadata.name ?? 'cli';
  const instanceKey = values.instance ?? 'default';
  const workdir = values.workdir
    ? resolve(values.workdir)
    : join(opened.opened.dir, '.goondan', 'workspaces', agentName, instanceKey);
  mkdirSync(workdir, { recursive: true });
  const turn = new AbortController();
  process.once('SIGINT', () => turn.abort('interrupted'));
  const result = await callOnce(toolset, { name, rawArgs, agentName, instanceKey, workdir, signal: turn.signal });
  const final = result.status === 'pending' && values.wait ? await waitForJob(toolset, result.handle!) : result;
  console.log(JSON.stringify(final, null, 2));
  return final.status === 'error' ? 1 : 0;
}

function callOnce(
  toolset: AgentToolset,
  options: {
    name: string;
    rawArgs: string;
    agentName: string;
    instanceKey: string;
    workdir: string;
    signal: AbortSignal;
  },
): Promise<ToolResult> {
  const toolCallId = `call_cli_${Date.now().toString(36)}`;
  // The assistant message that "made" the call, as a model would have (spec §2.5.4).
  const message: Message = {
    id: `msg_cli_${Date.now().toString(36)}`,
    data: {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId, toolName: options.name, input: options.rawArgs }],
    },
    metadata: {},
    createdAt: new Date(),
    source: { type: 'assistant' },
  };
  return toolset.executor.execute(
    { id: toolCallId, name: options.name, args: options.rawArgs },
    {
      catalog: toolset.catalogBuilder.build(),
      scope: {
        agentName: options.agentName,
        instanceKey: options.instanceKey,
        turnId: `turn_cli_${Date.now().toString(36)}`,
        message,
        workdir: options.workdir,
        logger: console,
        signal: options.signal,
      },
    },
  );
}

function waitForJob(toolset: AgentToolset, handle: string): Promise<ToolResult> {
  return new Promise((resolveResult) => {
    const current = toolset.executor.jobs.poll(handle);
    if (current.status !== 'pending') return resolveResult(current);
    toolset.executor.jobs.onComplete((event) => {
      if (event.handle === handle) resolveResult(event.result);
    });
  });
}
