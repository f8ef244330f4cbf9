import { join } from 'node:path';
import { type AgentEvent, newId } from '../agent/agent-event.ts';
import type { TurnResult } from '../agent/turn-types.ts';
import type { Bundle } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import type { JsonValue } from '../types.ts';
import { agentFingerprint } from './agent-fingerprint.ts';
import { wireError } from './agents-client.ts';
import type { AgentProcessInfo } from './agents-runtime.ts';
import { bundleToJson } from './bundle-transfer.ts';
import {
  controlEvent,
  eventTypes,
  formatAddress,
  type IpcEventMessage,
  type IpcMessage,
  ORCHESTRATOR,
  parseAddress,
  type ReplyData,
  type RequestReplyTo,
  replyEvent,
} from './ipc-message.ts';
import {
  type OrchestratorSnapshot,
  orchestratorStateDir,
  removeOrchestratorState,
  writeOrchestratorState,
} from './orchestrator-state-file.ts';
import { type PendingRequest, PendingRequests } from './pending-requests.ts';
import { defaultRestartPolicy, type RestartPolicy, restartDelay } from './restart-backoff.ts';
import {
  type AgentProcessConnection,
  type ProcessExit,
  type SpawnAgentProcess,
  spawnAgentProcess,
} from './spawn-agent-process.ts';
import { checkTarget, type SwarmTopology } from './swarm-topology.ts';

export const DEFAULT_GRACE_PERIOD_MS = 10_000;
const DEFAULT_READY_TIMEOUT_MS = 30_000;
const DEFAULT_RECONCILE_INTERVAL_MS = 1_000;
const STATE_WRITE_DELAY_MS = 100;
const instanceKeyPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** A runtime notification from an agent process (`runtime.*` events), for observers such as the CLI. */
export interface AgentNotification {
  agent: string;
  instanceKey: string;
  event: AgentEvent;
}

/** Lifecycle of agent processes, for logs: started, ready, crashed (with the planned restart), stopped. */
export type ProcessLifecycleEvent =
  | { type: 'started' | 'ready'; agent: string; instanceKey: string; pid: number }
  | {
      type: 'crashed';
      agent: string;
      instanceKey: string;
      exit: ProcessExit;
      restartInMs: number | null;
      message: string;
    }
  | { type: 'stopped'; agent: string; instanceKey: string; exit: ProcessExit; killed: boolean };

export interface OrchestratorOptions {
  bundle: Bundle;
  topology: SwarmTopology;
  /** Instance key of addresses that name none (the run's --instance). */
  instanceKey: string;
  /** Library bundles the agent processes load beside the bundle (e.g. @goondan/base). */
  libraries?: string[];
  stateDir?: string;
  spawnProcess?: SpawnAgentProcess;
  /** Environment of agent processes (default process.env: models need their keys; tools scrub it themselves). */
  env?: Record<string, string | undefined>;
  /** Ask agent processes for runtime notifications. */
  observe?: boolean;
  onNotification?: (notification: AgentNotification) => void;
  onLifecycle?: (event: ProcessLifecycleEvent) => void;
  /** Lines agent processes write (default: to stderr, prefixed with `[agent/instance]`). */
  onOutput?: (line: string, source: { agent: string; instanceKey: string; stream: 'stdout' | 'stderr' }) => void;
  /** Default timeout of agent-to-agent requests that name none (the callee's own default is 60 s). */
  requestTimeoutMs?: number;
  gracePeriodMs?: number;
  readyTimeoutMs?: number;
  restart?: Partial<RestartPolicy>;
  reconcileIntervalMs?: number;
  /** Where `gdn ps` reads this orchestrator's state; null: nowhere. */
  stateFile?: string | null;
}

interface ProcessRecord {
  agent: string;
  instanceKey: string;
  address: string;
  state: AgentProcessInfo['state'];
  /** Reconciliation keeps a process running for every record that is desired. */
  desired: boolean;
  connection: AgentProcessConnection | null;
  /** Bumped at every spawn: messages and exits of an earlier process are ignored. */
  generation: number;
  /** Events routed before the process was ready, delivered in order once it is. */
  buffer: IpcEventMessage[];
  /** Ids of events delivered whose turn has not ended. */
  outstanding: Set<string>;
  turnsServed: number;
  restarts: number;
  attempt: number;
  crashTimes: number[];
  startedAt: number | null;
  readyAt: number | null;
  lastExit?: AgentProcessInfo['lastExit'];
  nextRestartAt?: number;
  restartTimer?: ReturnType<typeof setTimeout>;
  readyTimer?: ReturnType<typeof setTimeout>;
  failure?: { code: string; message: string; suggestion?: string };
  readyWaiters: { resolve: () => void; reject: (error: GoondanError) => void }[];
  acked: boolean;
  /** We told it to stop: its exit is not a crash. */
  stopRequested: boolean;
  /** Start it again once it has stopped (--watch restart); events meanwhile wait in the buffer. */
  respawnAfterStop: boolean;
  fingerprint: string;
}

export interface ShutdownReport {
  acked: string[];
  killed: string[];
}

/**
 * The Orchestrator (DESIGN.md §2, spec v2.0-b §2.6, §11): one process per agent instance, spawned on the first
 * event for it (§2.6.7), with a ready handshake; routes `event` messages by agent and instance key; matches
 * replies by correlationId; fails requests that would deadlock (wait-for cycle), time out, or whose callee
 * crashed — never a hang; restarts crashed processes with exponential backoff; reconciles desired and running
 * processes; shuts down gracefully (shutdown → finish the current turn → shutdown_ack, SIGKILL after the grace).
 */
export class Orchestrator {
  private bundle: Bundle;
  private topology: SwarmTopology;
  private readonly records = new Map<string, ProcessRecord>();
  private readonly pending = new PendingRequests();
  private readonly restartPolicy: RestartPolicy;
  private readonly spawnProcess: SpawnAgentProcess;
  private readonly stateFile: string | null;
  private readonly startedAt = Date.now();
  private reconcileTimer: ReturnType<typeof setInterval> | undefined;
  private stateTimer: ReturnType<typeof setTimeout> | undefined;
  private shutdownPromise: Promise<ShutdownReport> | null = null;
  private bundleJsonCache: JsonValue | null = null;
  private readonly killOnExit = () => {
    for (const record of this.records.values()) record.connection?.kill('SIGKILL');
  };

  constructor(private readonly options: OrchestratorOptions) {
    this.bundle = options.bundle;
    this.topology = options.topology;
    this.restartPolicy = { ...defaultRestartPolicy, ...options.restart };
    this.spawnProcess = options.spawnProcess ?? spawnAgentProcess;
    this.stateFile =
      options.stateFile === undefined
        ? join(
            orchestratorStateDir({ rootDir: options.bundle.rootDir, stateDir: options.stateDir }),
            `${process.pid}.json`,
          )
        : options.stateFile;
    const interval = options.reconcileIntervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS;
    this.reconcileTimer = setInterval(() => this.reconcile(), interval);
    this.reconcileTimer.unref?.();
    // Last resort: whatever way this process ends, no agent process outlives it.
    process.on('exit', this.killOnExit);
    this.writeState();
  }

  get swarm(): SwarmTopology {
    return this.topology;
  }

  /**
   * Sends `input` to an agent (default: the entry agent) as a user event and resolves with its TurnResult once
   * the turn ends. Rejects with a GoondanError when the turn could not run (crash, shutdown, bad target).
   * Aborting `signal` cancels the callee's turn (it then ends `cancelled`).
   */
  request(options: {
    input: string;
    /** Event type (default `user.message`; `conversation.reset` starts the conversation afresh). */
    type?: string;
    target?: string;
    instanceKey?: string;
    source?: AgentEvent['source'];
    data?: JsonValue;
    timeoutMs?: number;
    signal?: AbortSignal;
  }): Promise<TurnResult & { agent: string; instanceKey: string }> {
    const correlationId = newId('corr');
    const replyTo: RequestReplyTo = { target: 'user', correlationId, timeoutMs: options.timeoutMs ?? 0 };
    const event = this.inputEvent(options, replyTo);
    const target = formatAddress(
      options.target ?? this.topology.entryAgent,
      options.instanceKey ?? this.options.instanceKey,
    );
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const request = this.pending.get(correlationId);
        const callee = request && this.records.get(request.calleeAddress);
        const cancel = controlEvent({ type: eventTypes.turnCancel, source: ORCHESTRATOR, data: { eventId: event.id } });
        if (callee?.state === 'ready')
          callee.connection?.transport.send({ type: 'event', from: ORCHESTRATOR, to: callee.address, payload: cancel });
        else if (callee) callee.buffer = callee.buffer.filter((message) => message.payload.id !== event.id);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.route(null, target, event, (reply) => {
        options.signal?.removeEventListener('abort', onAbort);
        const data = reply.data as unknown as ReplyData;
        if (data.error) reject(wireError(data.error));
        else resolve(data.result as unknown as TurnResult & { agent: string; instanceKey: string });
      });
    });
  }

  /** Sends `input` to an agent without waiting (no replyTo). Throws for a bad target or during shutdown. */
  send(options: {
    input: string;
    target?: string;
    instanceKey?: string;
    source?: AgentEvent['source'];
    data?: JsonValue;
  }) {
    const event = this.inputEvent(options, undefined);
    const target = formatAddress(
      options.target ?? this.topology.entryAgent,
      options.instanceKey ?? this.options.instanceKey,
    );
    let failure: GoondanError | undefined;
    this.route(null, target, event, undefined, (error) => {
      failure = error;
    });
    if (failure) throw failure;
    return { eventId: event.id };
  }

  /** Starts an agent instance (if it is not running) and resolves once it is ready. */
  async spawn(agent: string, instanceKey = this.options.instanceKey): Promise<AgentProcessInfo> {
    const record = this.ensure({ agent, instanceKey, from: null });
    if (record.state !== 'ready') {
      if (record.state === 'backoff' || record.state === 'crash-loop') throw this.unavailable(record);
      await new Promise<void>((resolve, reject) => record.readyWaiters.push({ resolve, reject }));
    }
    return this.info(record);
  }

  /** Every agent instance this orchestrator knows, running or not. */
  list(): AgentProcessInfo[] {
    return [...this.records.values()].map((record) => this.info(record));
  }

  /**
   * Graceful shutdown (DESIGN.md §2, spec §11.2): `shutdown` to every process; each finishes its current turn,
   * refuses what has not started, and acks; whatever has not exited after the grace period is killed with its
   * process group. Resolves when no agent process is left.
   */
  shutdown(options: { gracePeriodMs?: number; reason?: string } = {}): Promise<ShutdownReport> {
    this.shutdownPromise ??= this.shutdownAll(
      options.gracePeriodMs ?? this.options.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS,
      options.reason ?? 'shutdown',
    );
    return this.shutdownPromise;
  }

  /** Kills every agent process now (a second Ctrl-C). */
  killAll(): void {
    this.killOnExit();
  }

  /**
   * Takes a reloaded bundle (`gdn run --watch`): restarts only the instances whose agent's resources changed
   * (their conversations stay on disk and resume), stops those that left the swarm. Returns what was restarted.
   */
  reload(bundle: Bundle, topology: SwarmTopology): { restarted: string[]; stopped: string[] } {
    this.bundle = bundle;
    this.bundleJsonCache = null;
    this.topology = topology;
    const restarted: string[] = [];
    const stopped: string[] = [];
    for (const record of this.records.values()) {
      if (!topology.agents.includes(record.agent)) {
        record.desired = false;
        if (record.connection) this.stop(record, 'removed from the swarm', false);
        stopped.push(record.address);
        continue;
      }
      const fingerprint = agentFingerprint(bundle, record.agent);
      if (fingerprint === record.fingerprint) continue;
      record.fingerprint = fingerprint;
      if (record.connection) {
        this.stop(record, 'resources changed', true);
        restarted.push(record.address);
      }
    }
    return { restarted, stopped };
  }

  // ——— routing ———

  private inputEvent(
    options: { input: string; type?: string; source?: AgentEvent['source']; data?: JsonValue },
    replyTo: RequestReplyTo | undefined,
  ): AgentEvent {
    return {
      id: newId('evt'),
      type: options.type ?? 'user.message',
      input: options.input,
      source: options.source ?? { kind: 'user', name: 'cli' },
      ...(replyTo ? { replyTo } : {}),
      ...(options.data === undefined ? {} : { data: options.data }),
      createdAt: new Date().toISOString(),
    };
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
  ): void {
    const replyTo = event.replyTo as RequestReplyTo | undefined;
    const answerTo = answer ?? (from ? this.answerer(from) : () => {});
    const fail = (error: GoondanError) => {
      if (replyTo) answerTo(errorReply(replyTo.correlationId, event.id, error));
      else if (onSendFailure) onSendFailure(error);
      else
        this.options.onOutput?.(`dropped a send to ${to}: ${error.code} ${error.message}`, {
          agent: from?.agent ?? 'user',
          instanceKey: from?.instanceKey ?? '',
          stream: 'stderr',
        });
    };
    if (this.shutdownPromise)
      return fail(
        new GoondanError('E_AGENT_SHUTTING_DOWN', 'The orchestrator is shutting down; no new events are routed.'),
      );
    const address = parseAddress(to);
    const instanceKey = address.instanceKey ?? from?.instanceKey ?? this.options.instanceKey;
    let callee: ProcessRecord;
    try {
      callee = this.ensure({ agent: address.agent, instanceKey, from: from?.agent ?? null });
    } catch (thrown) {
      return fail(thrown instanceof GoondanError ? thrown : new GoondanError('E_AGENT_CRASHED', String(thrown)));
    }
    if (callee.state === 'backoff' || callee.state === 'crash-loop') return fail(this.unavailable(callee));
    if (callee.state === 'stopping' && !callee.respawnAfterStop) {
      return fail(new GoondanError('E_AGENT_SHUTTING_DOWN', `Agent ${callee.address} is shutting down.`));
    }
    if (replyTo) {
      const blocking = from !== null && replyTo.async !== true;
      const callerAddress = from?.address ?? 'user';
      const { cycle } = this.pending.open(
        {
          correlationId: replyTo.correlationId,
          eventId: event.id,
          callerAddress,
          calleeAddress: callee.address,
          blocking,
          answer: answerTo,
        },
        {
          timeoutMs: replyTo.timeoutMs ?? this.options.requestTimeoutMs ?? 0,
          onTimeout: (request) =>
            request.answer(
              errorReply(
                request.correlationId,
                request.eventId,
                new GoondanError(
                  'E_AGENT_REQUEST_TIMEOUT',
                  `Agent ${callee.address} did not answer within ${replyTo.timeoutMs} ms.`,
                ),
              ),
            ),
        },
      );
      if (cycle) {
        return fail(
          new GoondanError(
            'E_AGENT_REQUEST_CYCLE',
            `A request from ${callerAddress} to ${callee.address} would deadlock: ${cycle.join(' → ')}.`,
          ),
        );
      }
    }
    this.deliver(callee, { type: 'event', from: from?.address ?? ORCHESTRATOR, to: callee.address, payload: event });
  }

  /** How answers reach an agent process: as an `event` on its pipe, if it is still the same process. */
  private answerer(caller: ProcessRecord): (reply: AgentEvent) => void {
    const generation = caller.generation;
    return (reply) => {
      if (caller.generation !== generation || !caller.connection) return;
      caller.connection.transport.send({ type: 'event', from: ORCHESTRATOR, to: caller.address, payload: reply });
    };
  }

  private deliver(record: ProcessRecord, message: IpcEventMessage): void {
    record.outstanding.add(message.payload.id);
    if (record.state === 'ready' && record.connection) record.connection.transport.send(message);
    else record.buffer.push(message);
    this.changed();
  }

  /** The record of `agent/instanceKey`, its process spawned if it is not running (spec §2.6.7 auto-spawn). */
  private ensure(options: { agent: string; instanceKey: string; from: string | null }): ProcessRecord {
    const { agent, instanceKey, from } = options;
    checkTarget({ bundle: this.bundle, topology: this.topology, from, target: agent });
    if (!instanceKeyPattern.test(instanceKey)) {
      throw new GoondanError(
        'E_INSTANCE_KEY_INVALID',
        `Instance key '${instanceKey}' must be 1-128 letters, digits, '_', '.' or '-'.`,
      );
    }
    const address = formatAddress(agent, instanceKey);
    let record = this.records.get(address);
    if (!record) {
      record = {
        agent,
        instanceKey,
        address,
        state: 'stopped',
        desired: true,
        connection: null,
        generation: 0,
        buffer: [],
        outstanding: new Set(),
        turnsServed: 0,
        restarts: 0,
        attempt: 0,
        crashTimes: [],
        startedAt: null,
        readyAt: null,
        readyWaiters: [],
        acked: false,
        stopRequested: false,
        respawnAfterStop: false,
        fingerprint: agentFingerprint(this.bundle, agent),
      };
      this.records.set(address, record);
    }
    record.desired = true;
    if (record.state === 'stopped' && !this.shutdownPromise) this.start(record);
    return record;
  }

  // ——— process lifecycle ———

  private start(record: ProcessRecord): void {
    record.generation += 1;
    const generation = record.generation;
    Object.assign(record, {
      state: 'starting',
      startedAt: Date.now(),
      readyAt: null,
      acked: false,
      stopRequested: false,
      failure: undefined,
      nextRestartAt: undefined,
    });
    const onOutput = this.options.onOutput ?? defaultOutput;
    let connection: AgentProcessConnection;
    try {
      connection = this.spawnProcess({
        config: {
          bundleDir: this.bundle.rootDir,
          libraries: this.options.libraries ?? [],
          agent: record.agent,
          instanceKey: record.instanceKey,
          swarm: this.topology.name,
          ...(this.options.stateDir ? { stateDir: this.options.stateDir } : {}),
          observe: this.options.observe === true,
          parentPid: process.pid,
        },
        env: this.options.env ?? process.env,
        onOutput: (line, stream) => onOutput(line, { agent: record.agent, instanceKey: record.instanceKey, stream }),
      });
    } catch (thrown) {
      record.failure = {
        code: 'E_AGENT_CRASHED',
        message: `Could not start the process: ${toToolError(thrown).message}`,
      };
      queueMicrotask(() => this.exited(record, generation, { exitCode: null, signalCode: null }));
      return;
    }
    record.connection = connection;
    connection.transport.onMessage((message) => this.receive(record, generation, message));
    connection.transport.send({
      type: 'event',
      from: ORCHESTRATOR,
      to: record.address,
      payload: controlEvent({ type: eventTypes.bundle, source: ORCHESTRATOR, data: this.bundleJson() }),
    });
    void connection.exited.then((exit) => this.exited(record, generation, exit));
    record.readyTimer = setTimeout(() => {
      if (record.generation !== generation || record.state !== 'starting') return;
      record.failure = {
        code: 'E_AGENT_CRASHED',
        message: `Agent ${record.address} did not become ready within ${this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS} ms.`,
      };
      connection.kill('SIGKILL');
    }, this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS);
    this.lifecycle({ type: 'started', agent: record.agent, instanceKey: record.instanceKey, pid: connection.pid });
    this.changed();
  }

  private receive(record: ProcessRecord, generation: number, message: IpcMessage): void {
    if (record.generation !== generation) return;
    if (message.type === 'shutdown_ack') {
      record.acked = true;
      return;
    }
    if (message.type !== 'event') return;
    const event = message.payload;
    const data = (event.data ?? {}) as Record<string, JsonValue>;
    switch (event.type) {
      case eventTypes.ready:
        return this.ready(record);
      case eventTypes.failed:
        record.failure = data as unknown as ProcessRecord['failure'];
        return;
      case eventTypes.reply: {
        const reply = data as unknown as ReplyData;
        if (reply.eventId) this.turnEnded(record, reply.eventId);
        const request = this.pending.get(reply.correlationId);
        // Only the callee may answer a request.
        if (request?.calleeAddress === record.address) this.pending.take(reply.correlationId)?.answer(event);
        return;
      }
      case eventTypes.turnEnd:
        this.turnEnded(record, String(data.eventId));
        return this.notify(record, event);
      case eventTypes.requestCancel: {
        const request = this.pending.get(String(data.correlationId));
        if (request?.callerAddress === record.address) this.pending.take(request.correlationId);
        return;
      }
      case eventTypes.spawn:
      case eventTypes.list:
        return void this.query(record, event);
      default:
        if (event.type.startsWith('runtime.')) return this.notify(record, event);
        return this.route(record, message.to, event);
    }
  }

  private async query(record: ProcessRecord, event: AgentEvent): Promise<void> {
    const replyTo = event.replyTo;
    if (!replyTo) return;
    const answer = this.answerer(record);
    try {
      let result: JsonValue;
      if (event.type === eventTypes.list) result = this.list() as unknown as JsonValue;
      else {
        const { agent, instanceKey } = event.data as { agent: string; instanceKey: string };
        checkTarget({ bundle: this.bundle, topology: this.topology, from: record.agent, target: agent });
        result = (await this.spawn(agent, instanceKey)) as unknown as JsonValue;
      }
      answer(replyEvent({ source: ORCHESTRATOR, data: { correlationId: replyTo.correlationId, result } }));
    } catch (thrown) {
      const error = thrown instanceof GoondanError ? thrown : new GoondanError('E_AGENT_CRASHED', String(thrown));
      answer(errorReply(replyTo.correlationId, event.id, error));
    }
  }

  private ready(record: ProcessRecord): void {
    clearTimeout(record.readyTimer);
    record.state = 'ready';
    record.readyAt = Date.now();
    const buffered = record.buffer.splice(0);
    for (const message of buffered) record.connection?.transport.send(message);
    for (const waiter of record.readyWaiters.splice(0)) waiter.resolve();
    if (record.connection)
      this.lifecycle({
        type: 'ready',
        agent: record.agent,
        instanceKey: record.instanceKey,
        pid: record.connection.pid,
      });
    this.changed();
  }

  private turnEnded(record: ProcessRecord, eventId: string): void {
    if (record.outstanding.delete(eventId)) {
      record.turnsServed += 1;
      this.changed();
    }
  }

  /** Asks one process to stop gracefully; kills its group after the grace period. */
  private stop(record: ProcessRecord, reason: string, respawn: boolean): void {
    const connection = record.connection;
    if (!connection || record.stopRequested) return;
    record.stopRequested = true;
    record.respawnAfterStop = respawn;
    record.state = 'stopping';
    const gracePeriodMs = this.options.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS;
    connection.transport.send({
      type: 'shutdown',
      from: ORCHESTRATOR,
      to: record.address,
      payload: { gracePeriodMs, reason },
    });
    const generation = record.generation;
    const timer = setTimeout(() => {
      if (record.generation === generation && record.connection) record.connection.kill('SIGKILL');
    }, gracePeriodMs);
    void connection.exited.then(() => clearTimeout(timer));
    this.changed();
  }

  /** A process ended: expected (we stopped it) or a crash; fail what waits on it and plan its restart. */
  private exited(record: ProcessRecord, generation: number, exit: ProcessExit): void {
    if (record.generation !== generation || (record.connection === null && record.state !== 'starting')) return;
    clearTimeout(record.readyTimer);
    const now = Date.now();
    const expected = record.stopRequested;
    record.connection = null;
    record.lastExit = { code: exit.exitCode, signal: exit.signalCode, at: now };
    const respawn = expected && record.respawnAfterStop && !this.shutdownPromise;
    let restartInMs: number | null = null;
    if (!expected && record.desired && !this.shutdownPromise) {
      if (record.readyAt !== null && now - record.readyAt >= this.restartPolicy.stableAfterMs) record.attempt = 0;
      record.attempt += 1;
      restartInMs = restartDelay(record.attempt, this.restartPolicy);
    }
    if (!expected) {
      record.crashTimes = [...record.crashTimes, now].filter((at) => now - at <= this.restartPolicy.crashLoopWindowMs);
    }
    const error = expected
      ? new GoondanError('E_AGENT_SHUTTING_DOWN', `Agent ${record.address} stopped before answering.`)
      : this.crashError(record, exit, restartInMs);
    const { asCallee, asCaller } = this.pending.involving(record.address);
    for (const request of asCallee)
      this.pending.take(request.correlationId)?.answer(errorReply(request.correlationId, request.eventId, error));
    for (const request of asCaller) this.pending.take(request.correlationId);
    if (!respawn) {
      record.buffer = [];
      record.outstanding.clear();
      for (const waiter of record.readyWaiters.splice(0)) waiter.reject(error);
    } else {
      record.outstanding = new Set(record.buffer.map((message) => message.payload.id));
    }
    if (respawn) {
      record.respawnAfterStop = false;
      record.restarts += 1;
      this.lifecycle({
        type: 'stopped',
        agent: record.agent,
        instanceKey: record.instanceKey,
        exit,
        killed: !record.acked,
      });
      this.start(record);
      return;
    }
    if (restartInMs === null) {
      record.state = 'stopped';
      if (expected)
        this.lifecycle({
          type: 'stopped',
          agent: record.agent,
          instanceKey: record.instanceKey,
          exit,
          killed: !record.acked,
        });
      else
        this.lifecycle({
          type: 'crashed',
          agent: record.agent,
          instanceKey: record.instanceKey,
          exit,
          restartInMs: null,
          message: error.message,
        });
      this.changed();
      return;
    }
    record.state = record.crashTimes.length >= this.restartPolicy.crashLoopCrashes ? 'crash-loop' : 'backoff';
    record.nextRestartAt = now + restartInMs;
    record.restartTimer = setTimeout(() => {
      if (this.shutdownPromise || !record.desired || record.connection) return;
      record.restarts += 1;
      this.start(record);
    }, restartInMs);
    this.lifecycle({
      type: 'crashed',
      agent: record.agent,
      instanceKey: record.instanceKey,
      exit,
      restartInMs,
      message: error.message,
    });
    this.changed();
  }

  private crashError(record: ProcessRecord, exit: ProcessExit, restartInMs: number | null): GoondanError {
    const how = exit.signalCode ? `was killed (${exit.signalCode})` : `exited with code ${exit.exitCode}`;
    const then = restartInMs === null ? '' : `; restarting in ${restartInMs} ms`;
    if (record.failure && record.failure.code !== 'E_AGENT_CRASHED') {
      return wireError({
        ...record.failure,
        message: `Agent ${record.address} could not start: ${record.failure.message}${then}`,
      });
    }
    const detail = record.failure ? ` ${record.failure.message}` : '';
    return new GoondanError('E_AGENT_CRASHED', `Agent ${record.address} ${how} before answering.${detail}${then}.`);
  }

  private unavailable(record: ProcessRecord): GoondanError {
    const wait = record.nextRestartAt ? Math.max(0, record.nextRestartAt - Date.now()) : 0;
    return new GoondanError(
      'E_AGENT_CRASHED',
      `Agent ${record.address} crashed ${record.crashTimes.length} time(s) recently${record.state === 'crash-loop' ? ' (crash loop)' : ''}; the next restart is in ${wait} ms.`,
    );
  }

  /** Drift between desired and running processes is corrected here; the state file is refreshed. */
  private reconcile(): void {
    if (this.shutdownPromise) return;
    for (const record of this.records.values()) {
      if (record.desired && record.state === 'stopped') this.start(record);
      else if (!record.desired && record.connection && !record.stopRequested) this.stop(record, 'not wanted', false);
      else if (record.connection && !isAlive(record.connection.pid)) {
        this.exited(record, record.generation, { exitCode: null, signalCode: 'unknown' });
      }
    }
    this.writeState();
  }

  private async shutdownAll(gracePeriodMs: number, reason: string): Promise<ShutdownReport> {
    clearInterval(this.reconcileTimer);
    const waits: Promise<void>[] = [];
    const report: ShutdownReport = { acked: [], killed: [] };
    for (const record of this.records.values()) {
      clearTimeout(record.restartTimer);
      record.desired = false;
      const connection = record.connection;
      if (!connection) {
        record.state = 'stopped';
        continue;
      }
      record.stopRequested = true;
      record.respawnAfterStop = false;
      record.state = 'stopping';
      connection.transport.send({
        type: 'shutdown',
        from: ORCHESTRATOR,
        to: record.address,
        payload: { gracePeriodMs, reason },
      });
      waits.push(
        (async () => {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const inTime = await Promise.race([
            connection.exited.then(() => true),
            new Promise<boolean>((resolve) => {
              timer = setTimeout(() => resolve(false), gracePeriodMs);
            }),
          ]);
          clearTimeout(timer);
          if (!inTime) {
            connection.kill('SIGKILL');
            report.killed.push(record.address);
            await connection.exited;
          } else if (record.acked) report.acked.push(record.address);
          else report.killed.push(record.address);
        })(),
      );
    }
    this.changed();
    await Promise.all(waits);
    clearTimeout(this.stateTimer);
    if (this.stateFile) removeOrchestratorState(this.stateFile);
    process.off('exit', this.killOnExit);
    return report;
  }

  private bundleJson(): JsonValue {
    this.bundleJsonCache ??= bundleToJson(this.bundle);
    return this.bundleJsonCache;
  }

  // ——— observers and state ———

  private info(record: ProcessRecord): AgentProcessInfo {
    return {
      agent: record.agent,
      instanceKey: record.instanceKey,
      state: record.state,
      pid: record.connection?.pid ?? null,
      queueDepth: Math.max(
        0,
        record.outstanding.size - (record.state === 'ready' && record.outstanding.size > 0 ? 1 : 0),
      ),
      turnsServed: record.turnsServed,
      restarts: record.restarts,
      startedAt: record.startedAt,
      ...(record.lastExit ? { lastExit: record.lastExit } : {}),
      ...(record.nextRestartAt && (record.state === 'backoff' || record.state === 'crash-loop')
        ? { nextRestartAt: record.nextRestartAt }
        : {}),
    };
  }

  private notify(record: ProcessRecord, event: AgentEvent): void {
    try {
      this.options.onNotification?.({ agent: record.agent, instanceKey: record.instanceKey, event });
    } catch {
      // Observers cannot break routing (STYLE habit 8).
    }
  }

  private lifecycle(event: ProcessLifecycleEvent): void {
    try {
      this.options.onLifecycle?.(event);
    } catch {
      // Observers cannot break routing.
    }
  }

  private changed(): void {
    if (!this.stateFile || this.stateTimer || this.shutdownPromise) return;
    this.stateTimer = setTimeout(() => {
      this.stateTimer = undefined;
      this.writeState();
    }, STATE_WRITE_DELAY_MS);
    this.stateTimer.unref?.();
  }

  private writeState(): void {
    if (!this.stateFile) return;
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

function errorReply(correlationId: string, eventId: string, error: GoondanError): AgentEvent {
  return replyEvent({
    source: ORCHESTRATOR,
    data: { correlationId, eventId, error: { code: error.code, message: error.message, suggestion: error.suggestion } },
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function defaultOutput(line: string, source: { agent: string; instanceKey: string }): void {
  process.stderr.write(`[${source.agent}/${source.instanceKey}] ${line}\n`);
}
