import { fileURLToPath } from 'node:url';
import { environmentBlock } from '../processes/environment-block.ts';
import { openToolProcessTree } from '../processes/open-tool-process-tree.ts';
import type { JsonValue } from '../types.ts';
import { controlEvent, eventTypes, formatAddress, ORCHESTRATOR } from './ipc-message.ts';
import { isProcessAlive } from './is-process-alive.ts';
import { createFedTransport, type FedTransport } from './process-transport.ts';
import type { Transport } from './transport.ts';

/** What an agent process is told at start (one JSON argument): which bundle, agent and instance to open. */
export interface AgentProcessConfig {
  bundleDir: string;
  /** Library bundle directories loaded beside it (e.g. @goondan/base); core does not know them itself. */
  libraries: string[];
  agent: string;
  instanceKey: string;
  swarm: string;
  stateDir?: string;
  /** Send runtime notifications (text deltas, tool calls) for observers such as the CLI. */
  observe: boolean;
  /** The orchestrator's pid: the process exits when it is orphaned, even if no disconnect arrives. */
  parentPid: number;
  /** Idle this long (ms), the process offers to stop (`process.idle`); absent or 0: it never does. */
  idleExitMs?: number;
}

export interface ProcessExit {
  exitCode: number | null;
  signalCode: string | null;
}

/** A running agent process as the orchestrator holds it. */
export interface AgentProcessConnection {
  /** The process id; 0 until `started` resolves for a process on another machine (docs/transport.md). */
  pid: number;
  /** Resolves once `pid` is known (a worker reported the spawn); absent when it is known at once. */
  started?: Promise<void>;
  /**
   * Whether the process still runs, or its exit is still to be reported by `exited` (default: a signal 0 to `pid`
   * on this machine). The supervisor's check for processes gone without an exit reads it.
   */
  alive?(): boolean;
  transport: Transport;
  exited: Promise<ProcessExit>;
  /** Signals the whole process group (the agent and whatever it started in its group). */
  kill(signal?: NodeJS.Signals): void;
}

export interface SpawnAgentProcessOptions {
  config: AgentProcessConfig;
  /** The environment the process works with (default process.env): sent over IPC, never in its environment block. */
  env?: Record<string, string | undefined>;
  /** Its environment block, which its tools can read in /proc (default: this process's own block). */
  publicEnv?: Record<string, string>;
  /** Each line the process writes to stdout or stderr (default: dropped). */
  onOutput?: (line: string, stream: 'stdout' | 'stderr') => void;
}

export type SpawnAgentProcess = (options: SpawnAgentProcessOptions) => AgentProcessConnection;

const DRAIN_AFTER_EXIT_MS = 200;

export const agentProcessMain = fileURLToPath(new URL('./agent-process-main.ts', import.meta.url));

/** The longest line of an agent process's output held whole; a longer one is handed on in pieces this long. */
export const MAX_OUTPUT_LINE_CHARS = 65_536;

/**
 * Hands each line of an agent process's stdout or stderr to `write`. A line without its end in sight (a tool printing
 * megabytes with no newline) goes on in pieces of MAX_OUTPUT_LINE_CHARS: it was held whole in the orchestrator,
 * growing without bound while the process kept writing.
 */
export async function forwardLines(
  stream: ReadableStream<Uint8Array>,
  write: ((line: string, stream: 'stdout' | 'stderr') => void) | undefined,
  name: 'stdout' | 'stderr',
): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of stream) {
    if (!write) continue;
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      write(pending.slice(0, newline), name);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    while (pending.length > MAX_OUTPUT_LINE_CHARS) {
      write(pending.slice(0, MAX_OUTPUT_LINE_CHARS), name);
      pending = pending.slice(MAX_OUTPUT_LINE_CHARS);
    }
  }
  if (write && pending) write(pending, name);
}

interface StartedProcess {
  subprocess: ReturnType<typeof Bun.spawn>;
  transport: FedTransport;
  disconnect: Promise<void>;
  /** Where its output lines go (set when it serves an instance; a spare's lines are dropped). */
  output: { write?: (line: string, stream: 'stdout' | 'stderr') => void };
}

function startProcess(args: string[], publicEnv: Record<string, string>): StartedProcess {
  let transport: FedTransport | undefined;
  let disconnected: () => void = () => {};
  const disconnect = new Promise<void>((resolve) => {
    disconnected = resolve;
  });
  const output: StartedProcess['output'] = {};
  const subprocess = Bun.spawn([process.execPath, agentProcessMain, ...args], {
    // Marked as a process tree of this one: its process guard kills the agent process when this process dies, even
    // of SIGKILL, and even while a tool blocks the agent's event loop (its own orphan check cannot run then).
    env: { ...publicEnv, ...openToolProcessTree().variables },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
    serialization: 'json',
    ipc: (message) => transport?.receive(message),
    onDisconnect: () => {
      transport?.closed();
      disconnected();
    },
  });
  transport = createFedTransport({
    send: (message) => subprocess.send(message),
    close: () => subprocess.disconnect(),
  });
  const write = (line: string, stream: 'stdout' | 'stderr') => output.write?.(line, stream);
  void forwardLines(subprocess.stdout as ReadableStream<Uint8Array>, write, 'stdout').catch(() => {});
  void forwardLines(subprocess.stderr as ReadableStream<Uint8Array>, write, 'stderr').catch(() => {});
  return { subprocess, transport, disconnect, output };
}

function killGroup(subprocess: ReturnType<typeof Bun.spawn>, signal: NodeJS.Signals): void {
  try {
    process.kill(-subprocess.pid, signal);
  } catch {
    // No group (already gone): signal the process itself.
    try {
      subprocess.kill(signal);
    } catch {
      // Already exited.
    }
  }
}

/**
 * One agent process started ahead, its modules loaded (most of a cold start), waiting to be told which instance
 * it serves: the next spawn takes it and starts the next spare. Kept only while some Orchestrator on the IPC
 * transport runs (retainSpareAgentProcess), and only for processes with the default environment block.
 */
let spare: StartedProcess | null = null;
let spareUsers = 0;
let refillTimer: ReturnType<typeof setTimeout> | undefined;
/** After a cold start: the process just spawned loads its modules first. */
const SPARE_DELAY_MS = 100;
/** After a spawn that took the spare (issue 15: spawns back to back 89-120 ms with 100 here, 65-87 ms with 0). */
const TAKEN_SPARE_DELAY_MS = 0;
const killSpareOnExit = () => dropSpare();

function dropSpare(): void {
  clearTimeout(refillTimer);
  refillTimer = undefined;
  const dropped = spare;
  spare = null;
  if (dropped) killGroup(dropped.subprocess, 'SIGKILL');
}

/**
 * Starts the next spare. At once when the spawn took the last one (it only opens its instance now: the spare's load
 * runs beside it, and spawns back to back find it well on its way); a moment later after a cold start, which gets
 * the CPU for its own loading first.
 */
function scheduleSpare(delayMs: number): void {
  if (spareUsers === 0 || spare || refillTimer) return;
  refillTimer = setTimeout(() => {
    refillTimer = undefined;
    if (spareUsers > 0 && !spare) spare = startProcess(['--spare', String(process.pid)], environmentBlock());
  }, delayMs);
  refillTimer.unref?.();
}

function takeSpare(): StartedProcess | null {
  const taken = spare;
  spare = null;
  if (!taken || taken.subprocess.exitCode !== null || taken.subprocess.signalCode !== null) return null;
  return taken;
}

/** Keeps a spare agent process ready while the caller runs; call the returned function when done. */
export function retainSpareAgentProcess(): () => void {
  spareUsers += 1;
  if (spareUsers === 1) process.on('exit', killSpareOnExit);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    spareUsers -= 1;
    if (spareUsers > 0) return;
    process.off('exit', killSpareOnExit);
    dropSpare();
  };
}

/**
 * Starts `bun agent-process-main.ts CONFIG` with Bun's IPC channel (JSON serialisation, ordered), or hands the
 * config to the spare started ahead. The process
 * leads a process group of its own (`detached`): a Ctrl-C at the terminal reaches only the orchestrator, which
 * shuts agents down gracefully, and a kill reaches the agent's own children too. Its environment block is only
 * `publicEnv`; the real environment (model keys) is its first IPC message (docs/security.md).
 */
export const spawnAgentProcess: SpawnAgentProcess = (options) => {
  const address = formatAddress(options.config.agent, options.config.instanceKey);
  const fromSpare = options.publicEnv === undefined ? takeSpare() : null;
  const started = fromSpare ?? startProcess([JSON.stringify(options.config)], options.publicEnv ?? environmentBlock());
  scheduleSpare(fromSpare ? TAKEN_SPARE_DELAY_MS : SPARE_DELAY_MS);
  const { subprocess, transport, disconnect } = started;
  started.output.write = options.onOutput;
  if (fromSpare) {
    transport.send({
      type: 'event',
      from: ORCHESTRATOR,
      to: address,
      payload: controlEvent({
        type: eventTypes.config,
        source: ORCHESTRATOR,
        data: options.config as unknown as JsonValue,
      }),
    });
  }
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env ?? process.env))
    if (value !== undefined) environment[name] = value;
  // First of all, before the bundle: the process reads it into process.env before it opens anything.
  transport.send({
    type: 'event',
    from: ORCHESTRATOR,
    to: address,
    payload: controlEvent({ type: eventTypes.environment, source: ORCHESTRATOR, data: environment }),
  });
  const pid = subprocess.pid;
  // Exit counts once the pipe is drained too, so a reply written just before exiting is not taken for a crash.
  const exited = subprocess.exited.then(async () => {
    await Promise.race([disconnect, Bun.sleep(DRAIN_AFTER_EXIT_MS)]);
    transport.closed();
    const signal = subprocess.signalCode;
    return { exitCode: subprocess.exitCode, signalCode: signal === null ? null : String(signal) };
  });
  return {
    pid,
    transport,
    exited,
    // Once Bun has reaped the process its exit is on the way (`exited`, after the pipe drains): the supervisor's
    // check for processes gone without an exit must not report it first, as `killed (unknown)`.
    alive: () => subprocess.exitCode !== null || subprocess.signalCode !== null || isProcessAlive(pid),
    kill: (signal = 'SIGTERM') => killGroup(subprocess, signal),
  };
};
