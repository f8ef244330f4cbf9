import { cp, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type AgentEvent,
  type Bundle,
  loadBundle,
  Orchestrator,
  type OrchestratorOptions,
  resolveSwarm,
  type ScriptedStep,
  type ToolHandler,
} from '@goondan/core';

/** The @goondan/base bundle (Tool/agents lives there); core tests use it by path, as the CLI does. */
export const baseDir = resolve(import.meta.dir, '..', '..', 'base');
const fixtureDir = resolve(import.meta.dir, '__fixtures__', 'swarm');

export interface SwarmSpec {
  /** Script per agent; agents named here become Agents (coordinator, worker, … ) with Tool/agents and Tool/probe. */
  scripts: Record<string, ScriptedStep[]>;
  /** Members of the Swarm (default: every scripted agent). */
  members?: string[];
  entry?: string;
  /** Extra fields per Agent spec (e.g. tools with config). */
  agentSpecs?: Record<string, Record<string, unknown>>;
  /** More resources (e.g. another Model). */
  extraDocuments?: object[];
}

const probeTool = {
  apiVersion: 'goondan.ai/v1',
  kind: 'Tool',
  metadata: { name: 'probe' },
  spec: {
    entry: './tools/probe.ts',
    exports: [
      { name: 'sleep', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
      { name: 'exit', parameters: { type: 'object', properties: { code: { type: 'integer' } } } },
      { name: 'explode' },
      { name: 'crash-once' },
      { name: 'pid' },
      { name: 'deep-send', parameters: { type: 'object', properties: { depth: { type: 'integer' } } } },
      { name: 'job', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
      { name: 'mark', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ],
  },
};

/** The YAML of a swarm bundle (JSON documents are YAML). */
export function swarmYaml(spec: SwarmSpec): string {
  const names = Object.keys(spec.scripts);
  const documents: object[] = [probeTool];
  for (const name of names) {
    documents.push({
      apiVersion: 'goondan.ai/v1',
      kind: 'Model',
      metadata: { name: `${name}-model` },
      spec: { provider: 'scripted', model: name, script: spec.scripts[name] },
    });
    documents.push({
      apiVersion: 'goondan.ai/v1',
      kind: 'Agent',
      metadata: { name },
      spec: {
        modelConfig: { modelRef: `Model/${name}-model` },
        prompt: { system: `You are ${name}.` },
        tools: ['Tool/agents', 'Tool/probe'],
        ...spec.agentSpecs?.[name],
      },
    });
  }
  documents.push(...(spec.extraDocuments ?? []));
  const members = spec.members ?? names;
  documents.push({
    apiVersion: 'goondan.ai/v1',
    kind: 'Swarm',
    metadata: { name: 'team' },
    spec: { entryAgent: `Agent/${spec.entry ?? members[0]}`, agents: members.map((name) => `Agent/${name}`) },
  });
  return documents.map((document) => JSON.stringify(document, null, 2)).join('\n---\n');
}

const tempDirs: string[] = [];

/** A temp copy of the swarm fixture with the given agents and scripts. */
export async function swarmBundleDir(spec: SwarmSpec): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'gdn-swarm-')));
  tempDirs.push(dir);
  await cp(fixtureDir, dir, { recursive: true });
  await writeFile(join(dir, 'goondan.yaml'), swarmYaml(spec));
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export async function loadSwarm(
  dir: string,
): Promise<{ bundle: Bundle; handlers: Map<string, Record<string, ToolHandler>> }> {
  const loaded = await loadBundle({ dir, libraries: [baseDir] });
  if (!loaded.bundle) throw new Error(`fixture bundle is invalid: ${JSON.stringify(loaded.problems, null, 2)}`);
  return { bundle: loaded.bundle, handlers: loaded.handlers };
}

/** Every pid an orchestrator started, so tests can prove none survives. */
export interface StartedSwarm {
  orchestrator: Orchestrator;
  bundle: Bundle;
  dir: string;
  pids: Set<number>;
  lines: string[];
  /** Runtime notifications of every agent, in arrival order. */
  notifications: { agent: string; instanceKey: string; event: AgentEvent }[];
  /** The result of every tool call that ended, by agent. */
  toolResults(
    agent: string,
    toolName?: string,
  ): { toolName: string; status: string; output?: unknown; error?: { code: string; message: string } }[];
  /** Resolves when `agent` has ended `count` turns that were not requests (sends, job completions). */
  turnEnds(agent: string): number;
}

type OpenTransport = () => Promise<{ options: Partial<OrchestratorOptions>; close(): Promise<void> }>;
let openTransport: OpenTransport = async () => ({ options: {}, close: async () => {} });

/** Which agent transport startSwarm uses (swarm-transports.ts sets it per describe). */
export function setSwarmTransport(open: OpenTransport): void {
  openTransport = open;
}

/**
 * Orchestrator options of the current transport for an orchestrator a test builds itself; `close` after its
 * shutdown.
 */
export function transportOptions(): ReturnType<OpenTransport> {
  return openTransport();
}

/** Loads the bundle and starts an orchestrator on it (real agent processes). */
export async function startSwarm(spec: SwarmSpec, options: Partial<OrchestratorOptions> = {}): Promise<StartedSwarm> {
  const dir = await swarmBundleDir(spec);
  const { bundle } = await loadSwarm(dir);
  const transport = await openTransport();
  const pids = new Set<number>();
  const lines: string[] = [];
  const notifications: StartedSwarm['notifications'] = [];
  const orchestrator = new Orchestrator({
    bundle,
    topology: resolveSwarm(bundle)!,
    instanceKey: 'default',
    libraries: [baseDir],
    stateFile: null,
    observe: true,
    onOutput: (line, source) => lines.push(`[${source.agent}] ${line}`),
    onNotification: (notification) => notifications.push(notification),
    ...transport.options,
    ...options,
    onLifecycle: (event) => {
      if (event.type === 'started') pids.add(event.pid);
      options.onLifecycle?.(event);
    },
  });
  // The transport closes after the orchestrator's shutdown, whoever calls it.
  const shutdown = orchestrator.shutdown.bind(orchestrator);
  let closed: Promise<void> | undefined;
  orchestrator.shutdown = (shutdownOptions) =>
    shutdown(shutdownOptions).then(async (report) => {
      closed ??= transport.close();
      await closed;
      return report;
    });
  const toolResults: StartedSwarm['toolResults'] = (agent, toolName) =>
    notifications
      .filter(({ agent: from, event }) => from === agent && event.type === 'runtime.tool.end')
      .map(({ event }) => {
        const data = event.data as {
          toolName: string;
          result: { status: string; output?: unknown; error?: { code: string; message: string } };
        };
        return { toolName: data.toolName, ...data.result };
      })
      .filter((result) => toolName === undefined || result.toolName === toolName);
  const turnEnds = (agent: string) =>
    notifications.filter(({ agent: from, event }) => from === agent && event.type === 'runtime.turn.end').length;
  return { orchestrator, bundle, dir, pids, lines, notifications, toolResults, turnEnds };
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `predicate` holds, polling every 10 ms; throws after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}
