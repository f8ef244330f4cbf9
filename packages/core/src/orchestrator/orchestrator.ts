import { join } from 'node:path';
import { type AgentEvent, isoNow, newId, type TurnAuth } from '../agent/agent-event.ts';
import { invalidInstanceKey, isInstanceKey } from '../agent/instance-paths.ts';
import type { TurnResult } from '../agent/turn-types.ts';
import type { Bundle } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { OAuthService } from '../oauth/oauth-types.ts';
import type { ApprovalAnswer } from '../permissions/permission-types.ts';
import type { JsonValue } from '../types.ts';
import { agentFingerprint } from './agent-fingerprint.ts';
import { wireError } from './agents-client.ts';
import type { AgentProcessInfo } from './agents-runtime.ts';
import { answerOAuthToken } from './answer-oauth-token.ts';
import { bundleToJson } from './bundle-transfer.ts';
import { createInstanceNoticeBoard, type NoticeBoard } from './instance-notices.ts';
import {
  controlEvent,
  errorReplyEvent,
  eventTypes,
  formatAddress,
  type IpcMessage,
  ORCHESTRATOR,
  parseAddress,
  type ReplyData,
  type RequestReplyTo,
  replyEvent,
  type SendAckData,
  toWireError,
} from './ipc-message.ts';
import {
  type OrchestratorSnapshot,
  orchestratorStateDir,
  removeOrchestratorState,
  writeOrchestratorState,
} from './orchestrator-state-file.ts';
import { PendingRequests } from './pending-requests.ts';
import {
  type ProcessLifecycleEvent,
  type ProcessRecord,
  ProcessSupervisor,
  type ShutdownReport,
} from './process-supervisor.ts';
import { defaultRestartPolicy, type RestartPolicy } from './restart-backoff.ts';
import { createInstanceSendInbox, type SendInbox } from './send-inbox.ts';
import { retainSpareAgentProcess, type SpawnAgentProcess, spawnAgentProcess } from './spawn-agent-process.ts';
import { checkTarget, type SwarmTopology } from './swarm-topology.ts';
import type { SwarmTransport } from './swarm-transport.ts';

export type { ProcessLifecycleEvent, ShutdownReport };

export const DEFAULT_GRACE_PERIOD_MS = 10_000;
/** How long the end of a run waits for sent events to be handled before leaving them stored for the next one. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
const DEFAULT_READY_TIMEOUT_MS = 30_000;
/** At most this many agent processes may run for agents' own requests, sends and spawns (beyond `maxProcesses`). */
const DEFAULT_AGENT_PROCESS_LIMIT = 128;
const DEFAULT_RECONCILE_INTERVAL_MS = 1_000;
const STATE_WRITE_DELAY_MS = 100;

/** A runtime notification from an agent process (`runtime.*` events), for observers such as the CLI. */
export interface AgentNotification {
  agent: string;
  instanceKey: string;
  event: AgentEvent;
}

export interface OrchestratorOptions {
  bundle: Bundle;
  topology: SwarmTopology;
  /** Instance key of addresses that name none (the run's --instance). */
  instanceKey: string;
  /** Library bundles the agent processes load beside the bundle (e.g. @goondan/base). */
  libraries?: string[];
  stateDir?: string;
  spawnProcess?: SpawnAgentProcess;
  /** Where agent processes run (default `ipcSwarmTransport`: Bun child processes here); `spawnProcess` wins. */
  transport?: SwarmTransport;
  /** Environment of agent processes (default process.env: models need their keys; tools scrub it themselves). */
  env?: Record<string, string | undefined>;
  /** Ask agent processes for runtime notifications. */
  observe?: boolean;
  onNotification?: (notification: AgentNotification) => void;
  onLifecycle?: (event: ProcessLifecycleEvent) => void;
  /** Lines agent processes write (default: to stderr, prefixed with `[agent/instance]`). */
  onOutput?: (line: string, source: { agent: string; instanceKey: string; stream: 'stdout' | 'stderr' }) => void;
  /** Timeout of agent-to-agent requests that carry none (agent processes always set one, 60 s by default). */
  requestTimeoutMs?: number;
  gracePeriodMs?: number;
  /**
   * An agent process idle this long (no turn, queued event, tool job, approval or request outstanding) is stopped;
   * its next event starts it again, the conversation resumed from its database. Default 0: never (`gdn serve`
   * sets 10 minutes, `--idle-stop`).
   */
  idleStopMs?: number;
  /**
   * At most this many agent processes at once (default 0: no limit; `gdn serve --max-processes`, 64 there). An
   * instance to start beyond it waits (`waiting`) while the least recently active idle processes are asked to stop;
   * an agent's own request, send or spawn starts its target at once (docs/orchestrator.md#a-limit-on-processes).
   */
  maxProcesses?: number;
  /**
   * An agent's own request, send or spawn that would start a process while this many run fails with
   * E_AGENT_PROCESS_LIMIT (default 128, at least `maxProcesses`): an agent cannot start processes without end.
   */
  agentProcessLimit?: number;
  readyTimeoutMs?: number;
  restart?: Partial<RestartPolicy>;
  reconcileIntervalMs?: number;
  /** Where `gdn ps` reads this orchestrator's state (default `<bundle>/.goondan/orchestrator/<pid>.json`); null: nowhere. */
  stateFile?: string | null;
  /** Where sent events wait until handled (default: each target instance's database); null: memory only (tests). */
  inbox?: SendInbox | null;
  /** Default of `shutdown({ drain: true })`'s wait for sent events (30 000 ms). */
  drainTimeoutMs?: number;
  /** Where a reload's notice for restarted instances is left (default: each instance's database). */
  notices?: NoticeBoard;
  /** The OAuth host that answers agent processes' `oauth.token` queries (docs/oauth.md#one-writer). */
  oauth?: OAuthService;
}

interface SendBatchItem {
  put?: { agent: string; instanceKey: string; event: AgentEvent };
  deliver: () => void;
  fail?: (error: GoondanError) => void;
  /** The agent process that sent it: told once the send is stored (its `agents__send` answers then). */
  sender?: ProcessRecord;
  /** Called once it is stored (committed), for a caller that answers only then (`sendStored`). */
  stored?: () => void;
}

/** What `Orchestrator.send` takes: a user event for an agent instance, not waited for (`request` takes it too). */
export interface OrchestratorSendOptions {
  input: string;
  /** The event's id (default a new one): a caller that follows the turn's notifications knows it beforehand. */
  id?: string;
  /** Event type (default `user.message`; `conversation.reset` starts the conversation afresh). */
  type?: string;
  target?: string;
  instanceKey?: string;
  source?: AgentEvent['source'];
  data?: JsonValue;
  /** Who the turn acts for (the person behind the front end: auth.userId), kept along its requests. */
  auth?: TurnAuth;
}

type LocalReply = TurnResult & { agent: string; instanceKey: string };

/**
 * The Orchestrator (DESIGN.md §2, spec v2.0-b §2.6, §11): routes `event` messages between agent instances by
 * agent name and instance key, spawning a process for an instance on its first event (§2.6.7); matches replies by
 * correlationId; fails requests that would deadlock (wait-for cycle), time out, or whose callee crashed — never a
 * hang. Processes (ready handshake, restart with backoff, graceful shutdown, reconciliation) are the
 * ProcessSupervisor's; `gdn ps` reads the state file this class keeps.
 */
export class Orchestrator {
  private bundle: Bundle;
  private topology: SwarmTopology;
  private readonly supervisor: ProcessSupervisor;
  private readonly pending = new PendingRequests();
  /** Approvals each agent instance waits on: requests into such a chain do not time out meanwhile. */
  private readonly waitingApprovals = new Map<string, Set<string>>();
  private readonly stateFile: string | null;
  private readonly startedAt = Date.now();
  private readonly reconcileTimer: ReturnType<typeof setInterval>;
  private stateTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set once the state file is removed at the end of shutdown: nothing may write it again. */
  private stateClosed = false;
  private shutdownPromise: Promise<ShutdownReport> | null = null;
  /** Set once shutdown has drained: from then on nothing new is routed. */
  private closing = false;
  /** Set by killAll(): a shutdown waits for nothing any more. */
  private killed = false;
  private readonly inbox: SendInbox | null;
  /** Sent events accepted (stored) whose turn has not ended, by event id → target address. */
  private readonly acceptedSends = new Map<string, string>();
  private drainWaiters: (() => void)[] = [];
  private bundleData: JsonValue | null = null;
  /** Sends waiting for their one commit, and what was routed after them (in order). */
  private sendBatch: SendBatchItem[] | null = null;
  /** Notices of reloads for instances whose new process has not started yet, by address. */
  private readonly pendingNotices = new Map<string, string[]>();
  private readonly notices: NoticeBoard;
  private readonly killOnExit = () => this.supervisor.killAll();
  /** Processes asked to make room (`process.yield`) that have not answered yet. */
  private readonly yieldAsked = new Set<string>();
  /** Processes that answered busy: they offer to stop themselves once idle; not asked again until then. */
  private readonly yieldDeclined = new Set<string>();
  /** Agent processes here keep a spare started ahead (its modules loaded) while this runs. */
  private readonly releaseSpare: () => void;

  constructor(private readonly options: OrchestratorOptions) {
    this.bundle = options.bundle;
    this.topology = options.topology;
    const { rootDir } = options.bundle;
    // Workers on machines of their own do not see this state directory: no inbox there (docs/transport.md).
    const sharedState = options.transport?.sharedState ?? true;
    this.inbox =
      options.inbox === undefined
        ? sharedState
          ? createInstanceSendInbox({ rootDir, ...(options.stateDir ? { stateDir: options.stateDir } : {}) })
          : null
        : options.inbox;
    this.notices =
      options.notices ??
      createInstanceNoticeBoard({ rootDir, ...(options.stateDir ? { stateDir: options.stateDir } : {}) });
    this.stateFile =
      options.stateFile === undefined
        ? join(orchestratorStateDir({ rootDir, stateDir: options.stateDir }), `${process.pid}.json`)
        : options.stateFile;
    this.supervisor = new ProcessSupervisor({
      spawnProcess: options.spawnProcess ?? options.transport?.spawn ?? spawnAgentProcess,
      restartPolicy: { ...defaultRestartPolicy, ...options.restart },
      gracePeriodMs: options.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS,
      readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      env: options.env ?? process.env,
      processConfig: (record) => ({
        bundleDir: this.bundle.rootDir,
        libraries: options.libraries ?? [],
        agent: record.agent,
        instanceKey: record.instanceKey,
        swarm: this.topology.name,
        ...(options.stateDir ? { stateDir: options.stateDir } : {}),
        observe: options.observe === true,
        parentPid: process.pid,
        ...(options.idleStopMs ? { idleExitMs: options.idleStopMs } : {}),
      }),
      bundleData: () => {
        this.bundleData ??= bundleToJson(this.bundle);
        return this.bundleData;
      },
      fingerprint: (agent) => agentFingerprint(this.bundle, agent),
      ...(options.maxProcesses ? { maxProcesses: options.maxProcesses } : {}),
      onWaiting: () => this.makeRoom(),
      onOutput: options.onOutput ?? defaultOutput,
      onMessage: (record, message) => this.receive(record, message),
      onExit: (record, error, kept, restart) => {
        this.forgetYield(record);
        this.failWaitingOn(record, error, kept, restart);
      },
      onLifecycle: (event) => options.onLifecycle?.(event),
      beforeStart: (record) => this.leaveNotices(record),
      changed: () => this.changed(),
    });
    const local = !options.spawnProcess && (options.transport?.name ?? 'ipc') === 'ipc';
    this.releaseSpare = local ? retainSpareAgentProcess() : () => {};
    this.reconcileTimer = setInterval(() => {
      this.supervisor.reconcile();
      this.writeState();
    }, options.reconcileIntervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS);
    this.reconcileTimer.unref?.();
    // Last resort: whatever way this process ends, no agent process outlives it.
    process.on('exit', this.killOnExit);
    this.writeState();
    // What an earlier run accepted but did not get handled goes first (its targets start and read their inbox).
    this.deliverStoredSends();
  }

  get swarm(): SwarmTopology {
    return this.topology;
  }

  /**
   * Sends `input` to an agent (default: the entry agent) as a user event and resolves with its TurnResult once
   * the turn ends. Rejects with a GoondanError when the turn could not run (crash, shutdown, bad target).
   * Aborting `signal` cancels the callee's turn (it then ends `cancelled`).
   */
  request(options: OrchestratorSendOptions & { timeoutMs?: number; signal?: AbortSignal }): Promise<LocalReply> {
    const correlationId = newId('corr');
    const event = this.inputEvent(options, { target: 'user', correlationId, timeoutMs: options.timeoutMs ?? 0 });
    const agent = options.target ?? this.topology.entryAgent;
    const instanceKey = options.instanceKey ?? this.options.instanceKey;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const request = this.pending.get(correlationId);
        if (!request || this.cancelTurn(request.calleeAddress, event.id) === 'sent') return;
        // It never reached the process: it ends here, cancelled before its turn started.
        const result: LocalReply = {
          agent,
          instanceKey,
          turnId: '',
          traceId: '',
          eventId: event.id,
          status: 'cancelled',
          text: '',
          steps: 0,
          usage: { inputTokens: 0, outputTokens: 0 },
          reason: 'The turn was cancelled before it started.',
        };
        const data: ReplyData = { correlationId, eventId: event.id, result: result as unknown as JsonValue };
        this.pending.take(correlationId)?.answer(replyEvent({ source: ORCHESTRATOR, data }));
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.route(null, formatAddress(agent, instanceKey), event, (reply) => {
        options.signal?.removeEventListener('abort', onAbort);
        const data = reply.data as unknown as ReplyData;
        if (data.error) reject(wireError(data.error));
        else resolve(data.result as unknown as LocalReply);
      });
    });
  }

  /** Sends `input` to an agent without waiting (no replyTo). Throws for a bad target or during shutdown. */
  send(options: OrchestratorSendOptions) {
    let failure: GoondanError | undefined;
    let returned = false;
    const { eventId, to } = this.sendEvent(options, {
      onFailure: (error) => {
        failure = error;
        // Storing it failed after this returned (sends are stored in batches): said where sends' failures go.
        if (returned) {
          const source = { agent: 'user', instanceKey: '', stream: 'stderr' as const };
          (this.options.onOutput ?? defaultOutput)(`dropped a send to ${to}: ${error.code} ${error.message}`, source);
        }
      },
    });
    returned = true;
    if (failure) throw failure;
    return { eventId };
  }

  /**
   * `send`, resolved once the event is stored in its target's inbox (durable: handled in this run or when the target
   * next starts; without an inbox, once routed). Rejects when it could not be routed or stored, so a caller that
   * reports the event accepted (gdn serve's 202) never reports one that was dropped.
   */
  sendStored(options: OrchestratorSendOptions): Promise<{ eventId: string }> {
    return new Promise((resolve, reject) => {
      const { eventId } = this.sendEvent(options, { onFailure: reject, onStored: () => resolve({ eventId }) });
    });
  }

  private sendEvent(
    options: OrchestratorSendOptions,
    outcome: { onFailure: (error: GoondanError) => void; onStored?: () => void },
  ): { eventId: string; to: string } {
    const event = this.inputEvent(options, undefined);
    const agent = options.target ?? this.topology.entryAgent;
    const to = formatAddress(agent, options.instanceKey ?? this.options.instanceKey);
    this.route(null, to, event, undefined, outcome.onFailure, outcome.onStored);
    return { eventId: event.id, to };
  }

  /** Starts an agent instance (if it is not running) and resolves once it is ready. */
  async spawn(agent: string, instanceKey = this.options.instanceKey): Promise<AgentProcessInfo> {
    return this.startInstance(agent, instanceKey, null);
  }

  /** `spawn` for the user (null) or an agent (its name: never waits for a place under `maxProcesses`). */
  private async startInstance(agent: string, instanceKey: string, from: string | null): Promise<AgentProcessInfo> {
    if (this.closing) throw new GoondanError('E_AGENT_SHUTTING_DOWN', 'The orchestrator is shutting down.');
    const record = this.ensure(agent, instanceKey, from);
    await this.supervisor.whenReady(record);
    return this.supervisor.info(record);
  }

  /** Sent events accepted (stored) whose turn has not ended yet: what a drain waits for. */
  get pendingSends(): number {
    return this.acceptedSends.size;
  }

  /** Every agent instance this orchestrator knows, running or not. */
  list(): AgentProcessInfo[] {
    return [...this.supervisor.records.values()].map((record) => this.supervisor.info(record));
  }

  /**
   * Graceful shutdown (DESIGN.md §2, spec §11.2): `shutdown` to every process; each finishes its current turn,
   * refuses what has not started, and acks; whatever has not exited after the grace period is killed with its
   * process group. Resolves when no agent process is left.
   *
   * With `drain`, it first waits (up to `drainTimeoutMs`) until every sent event accepted so far has been handled,
   * routing as usual meanwhile (a handled event may send more). Sent events not handled by then stay stored in
   * their target's inbox and are handled when the target next starts; `pendingSends` counts them. A call without
   * `drain` while the drain runs (a signal as the command ends) ends it: the shutdown goes on at once.
   *
   * With `graceIncludesDrain`, the grace period counts from this call and bounds the whole shutdown: the drain
   * waits at most that long, and the processes get what is left of it (`gdn serve --grace`, where an event for an
   * instance that cannot start must not hold the end for `drainTimeoutMs`). After `killAll()` nothing is waited for.
   */
  shutdown(
    options: {
      gracePeriodMs?: number;
      reason?: string;
      drain?: boolean;
      drainTimeoutMs?: number;
      graceIncludesDrain?: boolean;
    } = {},
  ): Promise<ShutdownReport> {
    // A shutdown without drain (Ctrl-C, SIGTERM) during the drain of one under way: the drain ends now.
    if (this.shutdownPromise && !options.drain) for (const wake of this.drainWaiters.splice(0)) wake();
    this.shutdownPromise ??= (async () => {
      const startedAt = Date.now();
      const grace = options.gracePeriodMs ?? this.options.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS;
      if (options.drain && !this.killed) {
        const drainTimeoutMs = options.drainTimeoutMs ?? this.options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
        await this.drainSends(options.graceIncludesDrain ? Math.min(grace, drainTimeoutMs) : drainTimeoutMs);
      }
      this.closing = true;
      clearInterval(this.reconcileTimer);
      const left = options.graceIncludesDrain ? Math.max(0, grace - (Date.now() - startedAt)) : grace;
      const report = await this.supervisor.shutdownAll(this.killed ? 0 : left, options.reason ?? 'shutdown');
      clearTimeout(this.stateTimer);
      this.stateClosed = true;
      if (this.stateFile) removeOrchestratorState(this.stateFile);
      process.off('exit', this.killOnExit);
      this.releaseSpare();
      this.inbox?.close();
      return this.acceptedSends.size > 0 ? { ...report, pendingSends: this.acceptedSends.size } : report;
    })();
    return this.shutdownPromise;
  }

  /**
   * Kills every agent process now (a second Ctrl-C). A shutdown under way stops waiting: its drain ends at once and
   * whatever is still running is killed without a grace period.
   */
  killAll(): void {
    this.killed = true;
    for (const wake of this.drainWaiters.splice(0)) wake();
    this.supervisor.killAll();
  }

  /**
   * Takes a reloaded bundle (`gdn run --watch`): restarts only the instances whose agent's resources changed
   * (their conversations stay on disk and resume), stops those that left the swarm. A `notice` (say, which
   * revision is active now) is left for each changed instance, stored just before its new process starts: its
   * next turn sees it before its event (RuntimeNotices), and no turn starts for it.
   */
  reload(
    bundle: Bundle,
    topology: SwarmTopology,
    options: { notice?: string } = {},
  ): { restarted: string[]; stopped: string[] } {
    this.bundle = bundle;
    this.bundleData = null;
    this.topology = topology;
    const restarted: string[] = [];
    const stopped: string[] = [];
    for (const record of this.supervisor.records.values()) {
      if (!topology.agents.includes(record.agent)) {
        record.desired = false;
        this.supervisor.stop(record, 'removed from the swarm', false);
        stopped.push(record.address);
        continue;
      }
      const fingerprint = agentFingerprint(bundle, record.agent);
      if (fingerprint === record.fingerprint) continue;
      record.fingerprint = fingerprint;
      if (options.notice)
        this.pendingNotices.set(record.address, [...(this.pendingNotices.get(record.address) ?? []), options.notice]);
      if (!record.connection) continue;
      // The running turn ends on the revision it started with: the restart waits for it, with no kill timer.
      this.supervisor.stop(record, 'resources changed', true, { untilTurnEnds: true });
      restarted.push(record.address);
    }
    return { restarted, stopped };
  }

  /** Notices of reloads go into the instance's database before its new process opens it. */
  private leaveNotices(record: ProcessRecord): void {
    const notices = this.pendingNotices.get(record.address);
    if (!notices) return;
    this.pendingNotices.delete(record.address);
    try {
      for (const text of notices) this.notices.add(record.agent, record.instanceKey, text);
    } catch (thrown) {
      this.reportFailure(`could not leave a notice for ${record.address}`, thrown);
    }
  }

  /** A failure of the orchestrator's own bookkeeping, on its stderr output: it does not stop the swarm. */
  private reportFailure(what: string, thrown: unknown): void {
    const line = `${what}: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
    (this.options.onOutput ?? defaultOutput)(line, { agent: 'orchestrator', instanceKey: '', stream: 'stderr' });
  }

  private inputEvent(
    options: {
      input: string;
      id?: string;
      type?: string;
      source?: AgentEvent['source'];
      data?: JsonValue;
      auth?: TurnAuth;
    },
    replyTo: RequestReplyTo | undefined,
  ): AgentEvent {
    return {
      id: options.id ?? newId('evt'),
      type: options.type ?? 'user.message',
      input: options.input,
      source: options.source ?? { kind: 'user', name: 'cli' },
      ...(replyTo ? { replyTo } : {}),
      ...(options.data === undefined ? {} : { data: options.data }),
      ...(options.auth ? { auth: options.auth } : {}),
      createdAt: isoNow(),
    };
  }

  /** The record of a target the caller may address (null: the local user), its process started if needed. */
  private ensure(agent: string, instanceKey: string, from: string | null): ProcessRecord {
    checkTarget({ bundle: this.bundle, topology: this.topology, from, target: agent });
    if (!isInstanceKey(instanceKey)) throw invalidInstanceKey(instanceKey);
    if (from !== null) this.checkAgentProcessLimit(formatAddress(agent, instanceKey));
    // An agent's own request waits on its target: making it wait for a place could deadlock a chain.
    return this.supervisor.ensure(agent, instanceKey, from !== null);
  }

  /** An agent's event for an instance with no process starts one beyond `maxProcesses`, but not without end. */
  private checkAgentProcessLimit(address: string): void {
    const state = this.supervisor.records.get(address)?.state ?? 'stopped';
    if (state !== 'stopped' && state !== 'waiting') return;
    const limit = Math.max(
      this.options.agentProcessLimit ?? DEFAULT_AGENT_PROCESS_LIMIT,
      this.options.maxProcesses ?? 0,
    );
    if (this.supervisor.live() < limit) return;
    throw new GoondanError(
      'E_AGENT_PROCESS_LIMIT',
      `Agent ${address} is not running, and the swarm already runs ${limit} agent processes, the most an agent may start.`,
    );
  }

  /**
   * Routes a turn input from `from` (null: the local user) to `to`. A request (replyTo set) is answered exactly
   * once through `answer`: by the callee's reply, or by an error.
   */
  private route(
    from: ProcessRecord | null,
    to: string,
    event: AgentEvent,
    answer?: (reply: AgentEvent) => void,
    onSendFailure?: (error: GoondanError) => void,
    /** A send (no replyTo) is stored in its target's inbox (committed; without an inbox, routed). */
    onSendStored?: () => void,
  ): void {
    const replyTo = event.replyTo as RequestReplyTo | undefined;
    const answerTo = answer ?? (from ? this.answerer(from) : () => {});
    const fail = (error: GoondanError) => {
      if (replyTo) answerTo(errorReplyEvent({ correlationId: replyTo.correlationId, eventId: event.id, error }));
      else if (onSendFailure) onSendFailure(error);
      // An agent's send fails its agents__send call.
      else if (from) this.ackSends(from, [event.id], error);
      else {
        const source = { agent: 'user', instanceKey: '', stream: 'stderr' as const };
        (this.options.onOutput ?? defaultOutput)(`dropped a send to ${to}: ${error.code} ${error.message}`, source);
      }
    };
    if (this.closing) {
      return fail(
        new GoondanError('E_AGENT_SHUTTING_DOWN', 'The orchestrator is shutting down; no new events are routed.'),
      );
    }
    const address = parseAddress(to);
    let callee: ProcessRecord;
    try {
      callee = this.ensure(
        address.agent,
        address.instanceKey ?? from?.instanceKey ?? this.options.instanceKey,
        from?.agent ?? null,
      );
    } catch (thrown) {
      return fail(thrown instanceof GoondanError ? thrown : new GoondanError('E_AGENT_CRASHED', String(thrown)));
    }
    if (callee.state === 'backoff' || callee.state === 'crash-loop') return fail(this.supervisor.unavailable(callee));
    if (callee.state === 'stopping' && !callee.respawnAfterStop) {
      return fail(new GoondanError('E_AGENT_SHUTTING_DOWN', `Agent ${callee.address} is shutting down.`));
    }
    if (replyTo) {
      const callerAddress = from?.address ?? 'user';
      const timeoutMs = replyTo.timeoutMs ?? this.options.requestTimeoutMs ?? 0;
      const { cycle } = this.pending.open(
        {
          correlationId: replyTo.correlationId,
          eventId: event.id,
          callerAddress,
          calleeAddress: callee.address,
          // The caller's turn waits on it (the user is no agent; async requests do not block a turn).
          blocking: from !== null && replyTo.async !== true,
          answer: answerTo,
        },
        {
          timeoutMs,
          onTimeout: (request) => {
            const message = `Agent ${callee.address} did not answer within ${timeoutMs} ms.`;
            const error = new GoondanError('E_AGENT_REQUEST_TIMEOUT', message);
            request.answer(errorReplyEvent({ correlationId: request.correlationId, eventId: request.eventId, error }));
          },
        },
      );
      if (cycle) {
        const message = `A request from ${callerAddress} to ${callee.address} would deadlock: ${cycle.join(' → ')}.`;
        return fail(new GoondanError('E_AGENT_REQUEST_CYCLE', message));
      }
      // A callee already waiting for an approval holds this request too.
      if (this.waitingApprovals.size > 0) this.updateHolds();
    }
    const deliver = () =>
      this.supervisor.deliver(callee, {
        type: 'event',
        from: from?.address ?? ORCHESTRATOR,
        to: callee.address,
        payload: event,
      });
    // A send is accepted: the end of a run waits for it (drain). Stored first when there is an inbox: from then on it
    // is handled, in this run or when the target next starts.
    if (!replyTo) this.acceptedSends.set(event.id, callee.address);
    if (!replyTo && this.inbox) {
      const put = { agent: callee.agent, instanceKey: callee.instanceKey, event };
      this.inSendBatch({
        put,
        deliver,
        fail,
        ...(from ? { sender: from } : {}),
        ...(onSendStored ? { stored: onSendStored } : {}),
      });
    } else if (this.sendBatch) this.sendBatch.push({ deliver });
    else deliver();
    // Without an inbox (workers on other machines) a send is accepted once routed.
    if (!replyTo && !this.inbox) {
      if (from) this.ackSends(from, [event.id]);
      onSendStored?.();
    }
  }

  /**
   * Sends arriving together are stored with one commit per target (not one each), then routed. Until that commit,
   * whatever else is routed waits behind them, so the order of events is the order they arrived (FIFO).
   */
  private inSendBatch(item: SendBatchItem): void {
    if (!this.sendBatch) {
      const batch: SendBatchItem[] = [];
      this.sendBatch = batch;
      setImmediate(() => this.flushSends(batch));
    }
    this.sendBatch.push(item);
  }

  private flushSends(batch: SendBatchItem[]): void {
    if (this.sendBatch === batch) this.sendBatch = null;
    const puts = batch.flatMap((item) => (item.put ? [item.put] : []));
    let failure: GoondanError | null = null;
    try {
      this.inbox?.putMany(puts);
    } catch (thrown) {
      const reason = thrown instanceof Error ? thrown.message : String(thrown);
      failure = new GoondanError('E_STORE_OPEN', `Could not store sent events: ${reason}`);
    }
    const stored = new Map<ProcessRecord, string[]>();
    for (const item of batch) {
      if (item.put && failure) {
        this.acceptedSends.delete(item.put.event.id);
        item.fail?.(failure);
        continue;
      }
      item.deliver();
      item.stored?.();
      if (item.put && item.sender) {
        const ids = stored.get(item.sender);
        if (ids) ids.push(item.put.event.id);
        else stored.set(item.sender, [item.put.event.id]);
      }
    }
    // Committed: each sender hears, in one message, which of its sends are stored.
    for (const [sender, eventIds] of stored) this.ackSends(sender, eventIds);
    if (failure && this.acceptedSends.size === 0) for (const wake of this.drainWaiters.splice(0)) wake();
  }

  /** Tells an agent process its sends were accepted (stored), or refused with `error` (agent.send.ack). */
  private ackSends(sender: ProcessRecord, eventIds: string[], error?: GoondanError): void {
    if (!sender.connection) return;
    const data: SendAckData = { eventIds };
    if (error) data.error = toWireError(error);
    const payload = controlEvent({
      type: eventTypes.sendAck,
      source: ORCHESTRATOR,
      data: data as unknown as JsonValue,
    });
    sender.connection.transport.send({ type: 'event', from: ORCHESTRATOR, to: sender.address, payload });
  }

  /** How answers reach an agent process: as an `event` on its pipe, if it is still the same process. */
  private answerer(caller: ProcessRecord): (reply: AgentEvent) => void {
    const generation = caller.generation;
    return (reply) => {
      if (caller.generation !== generation || !caller.connection) return;
      caller.connection.transport.send({ type: 'event', from: ORCHESTRATOR, to: caller.address, payload: reply });
    };
  }

  /**
   * Cancels the callee's turn for `eventId`: `sent` when the process was told (its turn ends `cancelled` and it
   * answers), `dropped` when the event was still waiting here for the process to be ready.
   */
  /**
   * Hands a person's answer to the agent instance whose tool call waits for it (approvals surface through
   * `onNotification` as `runtime.approval.requested`, from any agent of the swarm). False when the instance has
   * no running process; its approval stays pending in its database (`gdn approvals` can answer it there).
   */
  answerApproval(options: { agent: string; instanceKey: string; id: string; answer: ApprovalAnswer }): boolean {
    const record = this.supervisor.records.get(formatAddress(options.agent, options.instanceKey));
    if (record?.state !== 'ready' || !record.connection) return false;
    const event = controlEvent({
      type: eventTypes.approvalAnswer,
      source: ORCHESTRATOR,
      data: { id: options.id, answer: options.answer as unknown as JsonValue },
    });
    record.connection.transport.send({ type: 'event', from: ORCHESTRATOR, to: record.address, payload: event });
    return true;
  }

  private cancelTurn(address: string, eventId: string): 'sent' | 'dropped' {
    const callee = this.supervisor.records.get(address);
    if (callee?.state === 'ready' && callee.connection) {
      const cancel = controlEvent({ type: eventTypes.turnCancel, source: ORCHESTRATOR, data: { eventId } });
      callee.connection.transport.send({ type: 'event', from: ORCHESTRATOR, to: callee.address, payload: cancel });
      return 'sent';
    }
    if (callee) {
      callee.buffer = callee.buffer.filter((message) => message.payload.id !== eventId);
      callee.outstanding.delete(eventId);
      // Waiting for a place with nothing left to run: it no longer takes one (the next waiting instance does).
      if (callee.state === 'waiting' && callee.buffer.length === 0) this.supervisor.stopWaiting(callee);
    }
    return 'dropped';
  }

  /** Everything an agent process sends besides the handshake: replies, turn inputs, queries, notifications. */
  private receive(record: ProcessRecord, message: IpcMessage): void {
    if (message.type !== 'event') return;
    const event = message.payload;
    const data = (event.data ?? {}) as Record<string, JsonValue>;
    switch (event.type) {
      case eventTypes.reply: {
        const reply = data as unknown as ReplyData;
        if (reply.eventId) this.supervisor.turnEnded(record, reply.eventId, reply.error === undefined);
        this.retireIfStoreRemoved(record, reply.result);
        if (this.supervisor.waitingCount > 0) queueMicrotask(() => this.makeRoom());
        // Only the callee may answer a request.
        if (this.pending.get(reply.correlationId)?.calleeAddress === record.address) {
          this.pending.take(reply.correlationId)?.answer(event);
        }
        return;
      }
      case eventTypes.turnEnd:
        this.supervisor.turnEnded(record, String(data.eventId), data.refused === undefined);
        this.retireIfStoreRemoved(record, data.result);
        if (this.supervisor.waitingCount > 0) this.makeRoom();
        // A refused send (its process was shutting down) stays stored for the next start.
        if (data.refused === undefined) this.sendHandled(String(data.eventId));
        return this.notify(record, event);
      case eventTypes.requestCancel: {
        // The caller's tool call was cancelled: forget the request and cancel the callee's turn for it.
        const request = this.pending.get(String(data.correlationId));
        if (request?.callerAddress !== record.address) return;
        this.pending.take(request.correlationId);
        this.cancelTurn(request.calleeAddress, request.eventId);
        return;
      }
      case eventTypes.requeue:
        return this.requeue(record, (data.events ?? []) as unknown as AgentEvent[]);
      case eventTypes.idle:
        // Offered because it was asked to make room: only while something still waits for a place.
        if (data.yield === true && this.supervisor.waitingCount === 0) return this.forgetYield(record);
        this.forgetYield(record);
        this.stopIfIdle(record);
        return this.makeRoom();
      case eventTypes.busy:
        this.yieldAsked.delete(record.address);
        this.yieldDeclined.add(record.address);
        return this.makeRoom();
      case eventTypes.spawn:
      case eventTypes.list:
      case eventTypes.oauthToken:
      case eventTypes.oauthPending:
        return void this.query(record, event);
      case eventTypes.approvalRequested:
      case eventTypes.approvalResolved: {
        const id = String(data.id);
        const waiting = this.waitingApprovals.get(record.address) ?? new Set<string>();
        if (event.type === eventTypes.approvalRequested) waiting.add(id);
        else waiting.delete(id);
        if (waiting.size > 0) this.waitingApprovals.set(record.address, waiting);
        else this.waitingApprovals.delete(record.address);
        this.updateHolds();
        return this.notify(record, event);
      }
      default:
        if (event.type.startsWith('runtime.')) return this.notify(record, event);
        return this.route(record, message.to, event);
    }
  }

  /** What a process stopping for a restart had not started waits for the new process (docs/orchestrator.md). */
  private requeue(record: ProcessRecord, events: AgentEvent[]): void {
    const messages = events
      .filter((event) => record.outstanding.has(event.id))
      .map((event) => ({ type: 'event' as const, from: ORCHESTRATOR, to: record.address, payload: event }));
    if (this.supervisor.requeue(record, messages)) return;
    // No new process follows after all (the swarm is shutting down): refused, as a shutdown refuses them.
    const error = new GoondanError('E_AGENT_SHUTTING_DOWN', `Agent ${record.address} is shutting down.`);
    for (const { payload: event } of messages) {
      this.supervisor.turnEnded(record, event.id, false);
      const replyTo = event.replyTo as RequestReplyTo | undefined;
      if (replyTo) {
        const reply = errorReplyEvent({ correlationId: replyTo.correlationId, eventId: event.id, error });
        this.pending.take(replyTo.correlationId)?.answer(reply);
      }
    }
  }

  private sendHandled(eventId: string): void {
    if (!this.acceptedSends.delete(eventId) || this.acceptedSends.size > 0) return;
    for (const wake of this.drainWaiters.splice(0)) wake();
  }

  /** Resolves once no accepted send waits to be handled, or after `timeoutMs`. */
  private drainSends(timeoutMs: number): Promise<void> {
    if (this.acceptedSends.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.drainWaiters.push(done);
    });
  }

  /** Starts the instances whose inbox holds sends an earlier run accepted; their processes handle them first. */
  private deliverStoredSends(): void {
    if (!this.inbox || this.closing) return;
    try {
      for (const { agent, instanceKey, eventIds } of this.inbox.stored(this.topology.agents)) {
        for (const eventId of eventIds) this.acceptedSends.set(eventId, formatAddress(agent, instanceKey));
        this.supervisor.ensure(agent, instanceKey);
      }
    } catch (thrown) {
      this.reportFailure('could not read stored sends', thrown);
    }
  }

  /** agents__spawn and agents__list, answered like requests. */
  private async query(record: ProcessRecord, event: AgentEvent): Promise<void> {
    const replyTo = event.replyTo;
    if (!replyTo) return;
    const answer = this.answerer(record);
    try {
      let result: JsonValue;
      if (event.type === eventTypes.list) result = this.list() as unknown as JsonValue;
      else if (event.type === eventTypes.oauthToken || event.type === eventTypes.oauthPending) {
        const pending = event.type === eventTypes.oauthPending;
        result = await answerOAuthToken({ service: this.options.oauth, from: record, data: event.data, pending });
      } else {
        const { agent, instanceKey } = event.data as { agent: string; instanceKey: string };
        checkTarget({ bundle: this.bundle, topology: this.topology, from: record.agent, target: agent });
        result = (await this.startInstance(agent, instanceKey, record.agent)) as unknown as JsonValue;
      }
      answer(replyEvent({ source: ORCHESTRATOR, data: { correlationId: replyTo.correlationId, result } }));
    } catch (thrown) {
      const error = thrown instanceof GoondanError ? thrown : new GoondanError('E_AGENT_CRASHED', String(thrown));
      answer(errorReplyEvent({ correlationId: replyTo.correlationId, eventId: event.id, error }));
    }
  }

  /**
   * A request whose callee (or any agent further down its chain) waits for a person's approval does not time
   * out meanwhile: its timer here and its caller's are paused until the approval is answered or ends.
   */
  private updateHolds(): void {
    const changed = this.pending.holdWaitingOn(new Set(this.waitingApprovals.keys()));
    for (const { request, held } of changed) {
      const caller = this.supervisor.records.get(request.callerAddress);
      if (caller?.state !== 'ready' || !caller.connection) continue;
      const event = controlEvent({
        type: eventTypes.requestHold,
        source: ORCHESTRATOR,
        data: { correlationId: request.correlationId, held },
      });
      caller.connection.transport.send({ type: 'event', from: ORCHESTRATOR, to: caller.address, payload: event });
    }
  }

  private forgetYield(record: ProcessRecord): void {
    this.yieldAsked.delete(record.address);
    this.yieldDeclined.delete(record.address);
  }

  /**
   * Instances wait for a place under `maxProcesses`: as many processes as wait, least recently active first, are
   * asked to stop if idle (`process.yield`). One answers `process.idle` (then stopped: its place goes to the first
   * waiting) or `process.busy` (the next is asked; it offers itself once idle). Only processes with nothing on its
   * way to them here are asked.
   */
  private makeRoom(): void {
    const records = [...this.supervisor.records.values()];
    // Processes already stopping (for room or otherwise) give their place to a waiting one when they exit.
    const leaving = records.filter((record) => record.state === 'stopping' && !record.respawnAfterStop).length;
    let needed = this.supervisor.waitingCount - this.yieldAsked.size - leaving;
    if (needed <= 0 || this.closing) return;
    const candidates = records
      .filter(
        (record) =>
          record.state === 'ready' &&
          !record.stopRequested &&
          record.connection &&
          !this.yieldAsked.has(record.address) &&
          !this.yieldDeclined.has(record.address) &&
          this.nothingOnItsWay(record),
      )
      .sort((a, b) => (a.lastActiveAt ?? 0) - (b.lastActiveAt ?? 0));
    for (const record of candidates) {
      if (needed <= 0) break;
      needed -= 1;
      this.yieldAsked.add(record.address);
      const event = controlEvent({ type: eventTypes.yield, source: ORCHESTRATOR });
      record.connection!.transport.send({ type: 'event', from: ORCHESTRATOR, to: record.address, payload: event });
    }
  }

  /** No event routed to it unanswered, no approval of its own waiting, no request it is to answer or waits on. */
  private nothingOnItsWay(record: ProcessRecord): boolean {
    if (record.outstanding.size > 0 || record.buffer.length > 0 || this.waitingApprovals.has(record.address)) {
      return false;
    }
    const { asCallee, asCaller } = this.pending.involving(record.address);
    return asCallee.length === 0 && asCaller.length === 0;
  }

  /**
   * An agent process says it has been idle for `idleStopMs`: it is stopped unless something is on its way to it
   * (an event routed, a request it is to answer or waits on, an approval). Its next event starts it again.
   */
  private stopIfIdle(record: ProcessRecord): void {
    if (this.closing || record.state !== 'ready' || record.stopRequested || !this.nothingOnItsWay(record)) return;
    record.desired = false;
    this.supervisor.stop(record, 'idle', false);
  }

  /**
   * A turn (or reset) of the process ended in E_STORE_REMOVED: the instance's files were deleted or replaced under
   * it, and it would refuse every turn from then on. It is restarted: the new process opens the instance as it is
   * now, afresh (as a first start would) when its directory was deleted, and takes the events the old one had not
   * started, and the sends stored since in the new database's inbox.
   */
  private retireIfStoreRemoved(record: ProcessRecord, result: JsonValue | undefined): void {
    const error = (result as { error?: { code?: unknown } } | null | undefined)?.error;
    if (error?.code !== 'E_STORE_REMOVED') return;
    if (this.closing || record.state !== 'ready' || record.stopRequested) return;
    this.supervisor.stop(record, 'its state was removed', true);
  }

  /**
   * A process ended: requests waiting on it fail at once; requests it made are forgotten. Agents are told of the
   * planned `restart` (they may retry after it); the user is not: its command may end first.
   */
  private failWaitingOn(record: ProcessRecord, error: GoondanError, kept: ReadonlySet<string>, restart: string): void {
    // Its approvals stay stored; a restarted process raises them again when it resumes the turn.
    if (this.waitingApprovals.delete(record.address)) this.updateHolds();
    const { asCallee, asCaller } = this.pending.involving(record.address);
    const toAgents = restart
      ? new GoondanError(error.code, `${error.message}${restart}`, { suggestion: error.suggestion })
      : error;
    for (const request of asCallee) {
      if (kept.has(request.eventId)) continue;
      const cause = request.callerAddress === 'user' ? error : toAgents;
      const reply = errorReplyEvent({ correlationId: request.correlationId, eventId: request.eventId, error: cause });
      this.pending.take(request.correlationId)?.answer(reply);
    }
    for (const request of asCaller) this.pending.take(request.correlationId);
  }

  private notify(record: ProcessRecord, event: AgentEvent): void {
    try {
      this.options.onNotification?.({ agent: record.agent, instanceKey: record.instanceKey, event });
    } catch {
      // Observers cannot break routing (STYLE habit 8).
    }
  }

  /** The state file for `gdn ps`, written at most every STATE_WRITE_DELAY_MS while things change. */
  private changed(): void {
    if (!this.stateFile || this.stateTimer || this.stateClosed) return;
    this.stateTimer = setTimeout(() => {
      this.stateTimer = undefined;
      this.writeState();
    }, STATE_WRITE_DELAY_MS);
    this.stateTimer.unref?.();
  }

  private writeState(): void {
    if (!this.stateFile || this.stateClosed) return;
    const snapshot: OrchestratorSnapshot = {
      pid: process.pid,
      bundleDir: this.bundle.rootDir,
      swarm: this.topology.name,
      instanceKey: this.options.instanceKey,
      startedAt: this.startedAt,
      updatedAt: Date.now(),
      processes: this.list(),
    };
    try {
      writeOrchestratorState(this.stateFile, snapshot);
    } catch {
      // `gdn ps` is an observer; a failed write must not stop the swarm.
    }
  }
}

function defaultOutput(line: string, source: { agent: string; instanceKey: string }): void {
  process.stderr.write(`[${source.agent}/${source.instanceKey}] ${line}\n`);
}
