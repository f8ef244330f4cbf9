import { existsSync } from 'node:fs';
import type {
  AgentEvent,
  AgentResource,
  ApprovalAnswer,
  ApprovalRecord,
  Bundle,
  Orchestrator,
  ProcessLifecycleEvent,
  SwarmTopology,
  TurnObserver,
  TurnResult,
} from '@goondan/core';
import {
  ConversationStore,
  forwardNotification,
  GoondanError,
  instancePaths,
  openAgentInstance,
  openInstanceDatabase,
  resolveSwarm,
  selectAgent,
  userEvent,
} from '@goondan/core/session';
import { printProblems } from './commands/validate.ts';
import { libraryBundleDirs } from './library-bundles.ts';
import { openBundle } from './open-bundle.ts';
import { openBundleOAuth, sendGrant } from './open-bundle-oauth.ts';
import { chooseAgent } from './open-instance.ts';
import { stderrLogger } from './stderr-logger.ts';
import { printable, useColor, writeAgentOutput } from './terminal.ts';

/** How long the end of a swarm run waits for sent events quietly before it says so. */
const DRAIN_NOTICE_MS = 1_000;

/** One conversation a command talks to: an in-process agent instance, or an agent of a swarm run by an Orchestrator. */
export interface AgentSession {
  mode: 'in-process' | 'swarm';
  agentName: string;
  instanceKey: string;
  /** Messages stored so far. */
  historyLength(): number;
  runTurn(input: string, options: { source: string; signal?: AbortSignal }): Promise<TurnResult>;
  /** Runs a turn for an event made elsewhere (a scheduler's `schedule.fired`), keeping its id, type and source. */
  runEvent(event: AgentEvent, options: { signal?: AbortSignal }): Promise<TurnResult>;
  reset(): Promise<void>;
  /**
   * Answers an approval raised by any agent of the session (the chosen one, or one it called). Resolves false
   * when the instance is not running here (its approval stays pending in its database).
   */
  answerApproval(record: ApprovalRecord, answer: ApprovalAnswer): Promise<boolean>;
  /** Finishes a turn a restart left waiting for approval (in-process; a swarm's agents resume by themselves). */
  resume(options: { signal?: AbortSignal }): Promise<TurnResult | null>;
  /** In-process: closes the instance. Swarm: graceful shutdown of every agent process. */
  close(): Promise<void>;
  /** Swarm mode only. */
  orchestrator?: Orchestrator;
  bundle: Bundle;
}

export interface SessionFlags {
  bundle?: string;
  agent?: string;
  instance?: string;
  swarm?: string;
  /** Grace period of a graceful shutdown, in ms (swarm mode): `--grace`, checked by the command (graceFlag). */
  graceMs?: number;
  /** `--user ID`: the person the turns act for (their auth.userId; per-user OAuth grants are theirs). */
  user?: string;
  observer?: TurnObserver;
  /** Observer of the other agents of a swarm (their tool calls, prefixed by the caller). */
  peerObserver?: (agent: string) => TurnObserver | undefined;
  /** Lifecycle lines (crashes, restarts) on stderr; off for --json. */
  quiet?: boolean;
  /**
   * False: no lifecycle lines of the chosen agent itself (`gdn run`: its failure is the command's own error, printed
   * once; a restart it announces never comes, since the command ends).
   */
  targetLifecycle?: boolean;
  /** Approvals raised by any agent of the session, and how they ended: the front end asks a person. */
  onApproval?: (record: ApprovalRecord) => void;
  onApprovalResolved?: (record: ApprovalRecord) => void;
}

/** `--user ID` (checked by the command, checkUserFlag) as a turn's auth context. */
function userAuth(flag: string | undefined): { userId: string } | undefined {
  return flag === undefined ? undefined : { userId: flag };
}

function describeLifecycle(event: ProcessLifecycleEvent): string | null {
  const who = `${event.agent}/${event.instanceKey}`;
  // The crash is told in the words of what failed (a tool, an extension): without its control characters.
  if (event.type === 'crashed') return `[${who}] ${printable(event.message)}`;
  if (event.type === 'stopped' && event.killed) return `[${who}] did not stop within the grace period; killed`;
  return null;
}

function storedMessages(bundle: Bundle, agent: string, instanceKey: string): number {
  const { databaseFile } = instancePaths({ rootDir: bundle.rootDir, agentName: agent, instanceKey });
  if (!existsSync(databaseFile)) return 0;
  const db = openInstanceDatabase(databaseFile, { forReading: true });
  try {
    // How many, without decoding them (a long conversation is hundreds of MB once loaded).
    return new ConversationStore(db).tail(0).total;
  } finally {
    db.close();
  }
}

/** A swarm session: an Orchestrator in this process, the chosen agent (default the entry agent) as the target. */
async function swarmSession(bundle: Bundle, topology: SwarmTopology, flags: SessionFlags): Promise<AgentSession> {
  const agentName = flags.agent ?? topology.entryAgent;
  if (!topology.agents.includes(agentName)) {
    selectAgent(bundle, agentName);
    throw new GoondanError(
      'E_AGENT_NOT_CALLABLE',
      `Agent '${agentName}' is not a member of Swarm '${topology.name}' (${topology.agents.join(', ')}).`,
    );
  }
  const instanceKey = flags.instance ?? topology.instanceKey ?? 'default';
  instancePaths({ rootDir: bundle.rootDir, agentName, instanceKey });
  const auth = userAuth(flags.user);
  const history = storedMessages(bundle, agentName, instanceKey);
  // This process owns the OAuth store; a grant's auth.granted goes to the live instance that asked.
  const oauth = await openBundleOAuth(bundle, {
    onGranted: (event, requester) => sendGrant(orchestrator, event, requester),
  });
  // The Orchestrator comes with the whole core API (index.ts), which a single agent run in this process does without.
  const { Orchestrator } = await import('@goondan/core');
  const orchestrator: Orchestrator = new Orchestrator({
    ...(oauth ? { oauth: oauth.host } : {}),
    bundle,
    topology,
    instanceKey,
    libraries: [...libraryBundleDirs],
    observe: true,
    gracePeriodMs: flags.graceMs,
    onNotification: ({ agent, instanceKey: key, event }) => {
      // Approvals surface to whoever drives the session, whichever agent raised them.
      forwardNotification(event, {
        onApprovalRequested: (record) => flags.onApproval?.(record),
        onApprovalResolved: (record) => flags.onApprovalResolved?.(record),
      });
      const observer = agent === agentName && key === instanceKey ? flags.observer : flags.peerObserver?.(agent);
      if (observer) forwardNotification(event, observer);
    },
    // What agent processes write (their tools' and extensions' log lines, which quote MCP servers and others) is
    // forwarded without its control characters, as this process's own log lines are.
    onOutput: writeAgentOutput,
    onLifecycle: (event) => {
      const own = event.agent === agentName && event.instanceKey === instanceKey;
      const line = flags.quiet || (own && flags.targetLifecycle === false) ? null : describeLifecycle(event);
      if (line) process.stderr.write(`${line}\n`);
    },
  });
  return {
    mode: 'swarm',
    agentName,
    instanceKey,
    bundle,
    orchestrator,
    historyLength: () => history,
    runTurn: (input, options) =>
      orchestrator.request({
        input,
        target: agentName,
        instanceKey,
        source: { kind: 'user', name: options.source },
        ...(auth ? { auth } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    runEvent: (event, options) =>
      orchestrator.request({
        id: event.id,
        type: event.type,
        input: event.input,
        target: agentName,
        instanceKey,
        source: event.source,
        ...(event.data === undefined ? {} : { data: event.data }),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    reset: async () => {
      await orchestrator.request({ input: '', type: 'conversation.reset', target: agentName, instanceKey });
    },
    answerApproval: async (record, answer) =>
      orchestrator.answerApproval({ agent: record.agent, instanceKey: record.instanceKey, id: record.id, answer }),
    resume: async () => null,
    close: async () => {
      // Sent events still being handled are waited for (bounded); what is left stays stored for the next run.
      const shutdown = orchestrator.shutdown({ reason: 'the command ended', drain: true });
      // A wait that lasts is said: the person would otherwise see nothing happen for up to 30 s.
      const notice = setTimeout(() => {
        const count = orchestrator.pendingSends;
        if (count > 0 && !flags.quiet) {
          process.stderr.write(
            `waiting up to 30 s for ${count} sent event(s) to be handled; what is left then stays in its target's inbox for the next run.\n`,
          );
        }
      }, DRAIN_NOTICE_MS);
      const report = await shutdown;
      clearTimeout(notice);
      await oauth?.close();
      if (report.pendingSends && !flags.quiet) {
        process.stderr.write(
          `${report.pendingSends} sent event(s) not handled yet; kept in their target's inbox for the next run.\n`,
        );
      }
    },
  };
}

/**
 * Loads the bundle and opens what a command talks to: when the bundle declares a Swarm (or --swarm names one),
 * an Orchestrator with one process per agent instance; otherwise the single agent in this process, as before.
 * Null (problems printed) when the bundle is invalid.
 */
export async function openSessionFromFlags(flags: SessionFlags): Promise<AgentSession | null> {
  const opened = await openBundle(flags.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return null;
  }
  const bundle = opened.bundle;
  const topology = resolveSwarm(bundle, flags.swarm);
  if (topology) return swarmSession(bundle, topology, flags);
  const agent: AgentResource = chooseAgent(bundle, flags.agent);
  const auth = userAuth(flags.user);
  const oauth = await openBundleOAuth(bundle);
  const instance = await openAgentInstance({
    bundle,
    handlers: opened.handlers,
    agent,
    instanceKey: flags.instance ?? 'default',
    logger: stderrLogger,
    observer: {
      ...flags.observer,
      onApprovalRequested: (record) => flags.onApproval?.(record),
      onApprovalResolved: (record) => flags.onApprovalResolved?.(record),
    },
  });
  return {
    mode: 'in-process',
    agentName: agent.metadata.name,
    instanceKey: instance.instanceKey,
    bundle,
    historyLength: () => instance.conversation().length,
    runTurn: (input, options) =>
      instance.enqueue({ ...userEvent(input, options.source), ...(auth ? { auth } : {}) }, { signal: options.signal }),
    runEvent: (event, options) => instance.enqueue(event, { signal: options.signal }),
    reset: async () => instance.reset(),
    answerApproval: async (record, answer) => {
      instance.answerApproval(record.id, answer);
      return true;
    },
    resume: (options) => instance.resume(options),
    close: async () => {
      await instance.close();
      await oauth?.close();
    },
  };
}

/**
 * Swarm mode's signals (issue: graceful shutdown): the first SIGINT or SIGTERM sends `shutdown` to every agent
 * process (each finishes its current turn and acks; SIGKILL after the grace period); a second one kills them all
 * at once. `signals` narrows which are handled (chat keeps Ctrl-C for cancelling a turn).
 */
export function handleShutdownSignals(
  session: AgentSession,
  signals: readonly ('SIGINT' | 'SIGTERM')[] = ['SIGINT', 'SIGTERM'],
) {
  let exitCode: number | undefined;
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    const orchestrator = session.orchestrator;
    if (exitCode !== undefined) {
      orchestrator?.killAll();
      return;
    }
    exitCode = signal === 'SIGINT' ? 130 : 143;
    void orchestrator?.shutdown({ reason: signal });
    resolveStopped();
  };
  const listeners = signals.map((signal) => [signal, () => onSignal(signal)] as const);
  for (const [signal, listener] of listeners) process.on(signal, listener);
  return {
    /** 130 after SIGINT, 143 after SIGTERM, undefined when no signal came. */
    get exitCode() {
      return exitCode;
    },
    /** Resolves when a signal started the shutdown. */
    stopped,
    dispose() {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    },
  };
}
