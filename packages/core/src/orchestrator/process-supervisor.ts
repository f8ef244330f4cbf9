import { GoondanError } from '../errors/goondan-error.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import { redactSecrets } from '../permissions/redact-secrets.ts';
import { settlesWithin } from '../timers/settles-within.ts';
import type { JsonValue } from '../types.ts';
import { wireError } from './agents-client.ts';
import type { AgentProcessInfo } from './agents-runtime.ts';
import {
  controlEvent,
  eventTypes,
  formatAddress,
  type IpcEventMessage,
  type IpcMessage,
  ORCHESTRATOR,
} from './ipc-message.ts';
import { isProcessAlive } from './is-process-alive.ts';
import { type RestartPolicy, restartDelay } from './restart-backoff.ts';
import type {
  AgentProcessConfig,
  AgentProcessConnection,
  ProcessExit,
  SpawnAgentProcess,
} from './spawn-agent-process.ts';

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

export interface ShutdownReport {
  acked: string[];
  killed: string[];
  /** Sent events not handled when the processes stopped: stored, handled when their target next starts. */
  pendingSends?: number;
}

/** One agent instance and the process that serves it (if any). */
export interface ProcessRecord {
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
  /** Crashes in a row (reset once a process stayed up stableAfterMs). */
  attempt: number;
  crashTimes: number[];
  startedAt: number | null;
  readyAt: number | null;
  lastExit?: AgentProcessInfo['lastExit'];
  nextRestartAt?: number;
  restartTimer?: ReturnType<typeof setTimeout>;
  readyTimer?: ReturnType<typeof setTimeout>;
  /** Why the process could not start (its `process.failed` event). */
  failure?: { code: string; message: string; suggestion?: string };
  readyWaiters: { resolve: () => void; reject: (error: GoondanError) => void }[];
  acked: boolean;
  /** We told it to stop: its exit is not a crash. */
  stopRequested: boolean;
  /** Start it again once it has stopped (--watch restart); events meanwhile wait in the buffer. */
  respawnAfterStop: boolean;
  fingerprint: string;
  /** When its last turn ended (or it became ready): the least recently active idle process makes room first. */
  lastActiveAt?: number;
}

export interface ProcessSupervisorOptions {
  spawnProcess: SpawnAgentProcess;
  restartPolicy: RestartPolicy;
  gracePeriodMs: number;
  readyTimeoutMs: number;
  env: Record<string, string | undefined>;
  /** What a new process of `record` is told at start. */
  processConfig: (record: ProcessRecord) => AgentProcessConfig;
  /** The validated bundle, sent to every process first (`process.bundle`). */
  bundleData: () => JsonValue;
  fingerprint: (agent: string) => string;
  /**
   * At most this many processes at once (0 or absent: no limit). A record to start beyond it waits in state
   * `waiting`, in order, until a process ends; `onWaiting` is told so the caller can ask idle ones to make room.
   */
  maxProcesses?: number;
  onWaiting?: () => void;
  onOutput: (line: string, source: { agent: string; instanceKey: string; stream: 'stdout' | 'stderr' }) => void;
  /** Every message of the current process except the handshake, `process.failed` and `shutdown_ack`. */
  onMessage: (record: ProcessRecord, message: IpcMessage) => void;
  /**
   * A process ended; requests waiting on it fail with `error`, except those of `kept` events (still buffered).
   * `restart` is the planned restart (` Restarting in N ms.`, or empty): agents waiting on it are told, a user's
   * request is not, since its command may end before the restart (gdn run: a restart it announced never came).
   */
  onExit: (record: ProcessRecord, error: GoondanError, kept: ReadonlySet<string>, restart: string) => void;
  onLifecycle: (event: ProcessLifecycleEvent) => void;
  /** Just before a process of `record` is spawned (none of the instance runs at that moment). */
  beforeStart?: (record: ProcessRecord) => void;
  changed: () => void;
}

/**
 * The process side of the Orchestrator: one record per agent instance; spawns with a ready handshake, restarts
 * crashes with exponential backoff (crash-loop state when they repeat), stops gracefully (shutdown → ack, SIGKILL
 * of the process group after the grace period), and reconciles desired against running processes.
 */
export class ProcessSupervisor {
  readonly records = new Map<string, ProcessRecord>();
  /** Records waiting for a free place under `maxProcesses`, first come first started. */
  private readonly waiting: ProcessRecord[] = [];
  private shuttingDown = false;

  constructor(private readonly options: ProcessSupervisorOptions) {}

  /**
   * The record of `agent/instanceKey`, its process started if it is not running (spec §2.6.7 auto-spawn). At
   * `maxProcesses` it waits for a place, unless `overLimit` (an agent's own request: waiting could deadlock a chain).
   */
  ensure(agent: string, instanceKey: string, overLimit = false): ProcessRecord {
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
        fingerprint: this.options.fingerprint(agent),
      };
      this.records.set(address, record);
    }
    record.desired = true;
    if (record.state === 'stopped' && !this.shuttingDown) this.startOrWait(record, overLimit);
    else if (record.state === 'waiting' && overLimit) this.startWaiting(record);
    // Stopping (idle, or no longer wanted) when it is wanted again: it starts again once it has stopped, and what
    // is routed to it meanwhile waits in its buffer for that process.
    else if (record.state === 'stopping' && record.stopRequested && !this.shuttingDown) record.respawnAfterStop = true;
    return record;
  }

  /** Sends to the process when it is ready; otherwise the event waits in the record's buffer. */
  deliver(record: ProcessRecord, message: IpcEventMessage): void {
    record.outstanding.add(message.payload.id);
    if (record.state === 'ready' && record.connection) record.connection.transport.send(message);
    else record.buffer.push(message);
    this.options.changed();
  }

  /** Resolves once the record's process is ready; rejects if it ends first. */
  whenReady(record: ProcessRecord): Promise<void> {
    if (record.state === 'ready') return Promise.resolve();
    if (record.state === 'backoff' || record.state === 'crash-loop') return Promise.reject(this.unavailable(record));
    return new Promise((resolve, reject) => record.readyWaiters.push({ resolve, reject }));
  }

  /** A turn ended (or an event was refused: not served). */
  turnEnded(record: ProcessRecord, eventId: string, served: boolean): void {
    record.outstanding.delete(eventId);
    record.lastActiveAt = Date.now();
    if (served) record.turnsServed += 1;
    this.options.changed();
  }

  /** Why an instance waiting for its restart cannot take events now. */
  unavailable(record: ProcessRecord): GoondanError {
    const wait = record.nextRestartAt ? Math.max(0, record.nextRestartAt - Date.now()) : 0;
    const loop = record.state === 'crash-loop' ? ' (crash loop)' : '';
    return new GoondanError(
      'E_AGENT_CRASHED',
      `Agent ${record.address} crashed ${record.crashTimes.length} time(s) recently${loop}; the next restart is in ${wait} ms.`,
    );
  }

  /** Asks one process to stop gracefully (restarting it afterwards if `respawn`); kills it after the grace. */
  /**
   * Asks the process to end after its running turn. After the grace period it is killed, unless `untilTurnEnds`:
   * a restart for a new bundle revision waits for the turn however long it takes (never cut in the middle).
   */
  stop(record: ProcessRecord, reason: string, respawn: boolean, options: { untilTurnEnds?: boolean } = {}): void {
    const connection = record.connection;
    if (!connection || record.stopRequested) return;
    record.stopRequested = true;
    record.respawnAfterStop = respawn;
    record.state = 'stopping';
    const { gracePeriodMs } = this.options;
    connection.transport.send({
      type: 'shutdown',
      from: ORCHESTRATOR,
      to: record.address,
      payload: { gracePeriodMs, reason, ...(respawn ? { restart: true } : {}) },
    });
    if (options.untilTurnEnds) {
      this.options.changed();
      return;
    }
    const generation = record.generation;
    const timer = setTimeout(() => {
      if (record.generation === generation && record.connection) record.connection.kill('SIGKILL');
    }, gracePeriodMs);
    void connection.exited.then(() => clearTimeout(timer));
    this.options.changed();
  }

  /**
   * Events a process stopping for a restart had queued and not started: they go first to the new process, ahead
   * of those routed to it meanwhile. False when no restart follows any more (the caller refuses them).
   */
  requeue(record: ProcessRecord, events: IpcEventMessage[]): boolean {
    if (!record.respawnAfterStop || this.shuttingDown) return false;
    record.buffer.unshift(...events);
    this.options.changed();
    return true;
  }

  /** How many records wait for a place under `maxProcesses`. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /**
   * A record waiting for a place that has nothing left to run (its events were cancelled): out of the queue, back
   * to `stopped`; its next event starts (or queues) it again.
   */
  stopWaiting(record: ProcessRecord): void {
    this.leaveQueue(record);
    if (record.state === 'waiting') record.state = 'stopped';
    record.desired = false;
    this.options.changed();
  }

  private leaveQueue(record: ProcessRecord): void {
    const at = this.waiting.indexOf(record);
    if (at >= 0) this.waiting.splice(at, 1);
  }

  /** Processes running or on their way (a place under `maxProcesses` each). */
  live(): number {
    let count = 0;
    for (const record of this.records.values()) if (record.connection) count += 1;
    return count;
  }

  private startOrWait(record: ProcessRecord, overLimit = false): void {
    const max = this.options.maxProcesses ?? 0;
    if (overLimit || max <= 0 || this.live() < max) return this.start(record);
    record.state = 'waiting';
    this.waiting.push(record);
    this.options.changed();
    this.options.onWaiting?.();
  }

  /** Starts `record` if given (taken out of the queue), then the queue's first while there is a place. */
  private startWaiting(record?: ProcessRecord): void {
    if (record) {
      this.leaveQueue(record);
      this.start(record);
    }
    const max = this.options.maxProcesses ?? 0;
    while (this.waiting.length > 0 && !this.shuttingDown && (max <= 0 || this.live() < max)) {
      const next = this.waiting.shift()!;
      if (next.state !== 'waiting') continue;
      if (next.desired) this.start(next);
      else next.state = 'stopped';
    }
  }

  /** Drift between desired and running processes is corrected here. */
  reconcile(): void {
    if (this.shuttingDown) return;
    for (const record of this.records.values()) {
      if (record.desired && record.state === 'stopped') this.startOrWait(record);
      else if (!record.desired && record.connection && !record.stopRequested) this.stop(record, 'not wanted', false);
      else if (record.connection && !(record.connection.alive?.() ?? isProcessAlive(record.connection.pid))) {
        // Gone without an exit event: treat it as the crash it is.
        this.exited(record, record.generation, { exitCode: null, signalCode: 'unknown' });
      }
    }
  }

  /** Graceful shutdown of every process; resolves when none is left. */
  async shutdownAll(gracePeriodMs: number, reason: string): Promise<ShutdownReport> {
    this.shuttingDown = true;
    const report: ShutdownReport = { acked: [], killed: [] };
    const waits: Promise<void>[] = [];
    for (const record of this.records.values()) {
      clearTimeout(record.restartTimer);
      record.desired = false;
      const connection = record.connection;
      if (!connection) {
        if (record.state === 'waiting') {
          // Never started: what waits on it is answered now (sends stay stored for its next start).
          const error = new GoondanError(
            'E_AGENT_SHUTTING_DOWN',
            `Agent ${record.address} was waiting for a place (maxProcesses) when the orchestrator shut down; it did not start.`,
          );
          for (const waiter of record.readyWaiters.splice(0)) waiter.reject(error);
          record.buffer = [];
          record.outstanding.clear();
          this.options.onExit(record, error, new Set(), '');
        }
        record.state = 'stopped';
        continue;
      }
      Object.assign(record, { stopRequested: true, respawnAfterStop: false, state: 'stopping' });
      connection.transport.send({
        type: 'shutdown',
        from: ORCHESTRATOR,
        to: record.address,
        payload: { gracePeriodMs, reason },
      });
      waits.push(
        (async () => {
          const inTime = await settlesWithin(connection.exited, gracePeriodMs);
          if (!inTime) {
            connection.kill('SIGKILL');
            await connection.exited;
          }
          (inTime && record.acked ? report.acked : report.killed).push(record.address);
        })(),
      );
    }
    this.waiting.length = 0;
    this.options.changed();
    await Promise.all(waits);
    report.acked.sort();
    report.killed.sort();
    return report;
  }

  /** SIGKILL to every process group, now. */
  killAll(): void {
    for (const record of this.records.values()) record.connection?.kill('SIGKILL');
  }

  info(record: ProcessRecord): AgentProcessInfo {
    const waiting = record.outstanding.size - (record.state === 'ready' && record.outstanding.size > 0 ? 1 : 0);
    const restarting = record.state === 'backoff' || record.state === 'crash-loop';
    return {
      agent: record.agent,
      instanceKey: record.instanceKey,
      state: record.state,
      pid: record.connection?.pid || null,
      queueDepth: Math.max(0, waiting),
      turnsServed: record.turnsServed,
      restarts: record.restarts,
      startedAt: record.startedAt,
      ...(record.lastExit ? { lastExit: record.lastExit } : {}),
      ...(record.nextRestartAt && restarting ? { nextRestartAt: record.nextRestartAt } : {}),
    };
  }

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
    this.options.beforeStart?.(record);
    let connection: AgentProcessConnection;
    try {
      connection = this.options.spawnProcess({
        config: this.options.processConfig(record),
        env: this.options.env,
        // What a process prints (a tool's console, its logger) is masked here, in the process that hands out
        // secrets (OAuth tokens, resolved ValueSources), before any sink sees it.
        onOutput: (line, stream) =>
          this.options.onOutput(String(redactSecrets(line)), {
            agent: record.agent,
            instanceKey: record.instanceKey,
            stream,
          }),
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
    const bundle = controlEvent({ type: eventTypes.bundle, source: ORCHESTRATOR, data: this.options.bundleData() });
    connection.transport.send({ type: 'event', from: ORCHESTRATOR, to: record.address, payload: bundle });
    void connection.exited.then((exit) => this.exited(record, generation, exit));
    const { readyTimeoutMs } = this.options;
    record.readyTimer = setTimeout(() => {
      if (record.generation !== generation || record.state !== 'starting') return;
      record.failure = { code: 'E_AGENT_CRASHED', message: `It did not become ready within ${readyTimeoutMs} ms.` };
      connection.kill('SIGKILL');
    }, readyTimeoutMs);
    if (!connection.started) this.lifecycle(record, { type: 'started', pid: connection.pid });
    else {
      void connection.started.then(() => {
        if (record.generation === generation) this.lifecycle(record, { type: 'started', pid: connection.pid });
      });
    }
    this.options.changed();
  }

  private receive(record: ProcessRecord, generation: number, message: IpcMessage): void {
    if (record.generation !== generation) return;
    if (message.type === 'shutdown_ack') {
      record.acked = true;
      return;
    }
    if (message.type === 'event' && message.payload.type === eventTypes.ready) return this.ready(record);
    if (message.type === 'event' && message.payload.type === eventTypes.failed) {
      record.failure = message.payload.data as unknown as ProcessRecord['failure'];
      return;
    }
    this.options.onMessage(record, message);
  }

  private ready(record: ProcessRecord): void {
    clearTimeout(record.readyTimer);
    record.state = 'ready';
    record.readyAt = Date.now();
    record.lastActiveAt = record.readyAt;
    for (const message of record.buffer.splice(0)) record.connection?.transport.send(message);
    for (const waiter of record.readyWaiters.splice(0)) waiter.resolve();
    if (record.connection) this.lifecycle(record, { type: 'ready', pid: record.connection.pid });
    this.options.changed();
    // One more process that may be idle (started for events since cancelled): room can be asked of it.
    if (this.waiting.length > 0) this.options.onWaiting?.();
  }

  /** A process ended: expected (we stopped it) or a crash; fail what waits on it and plan its restart. */
  private exited(record: ProcessRecord, generation: number, exit: ProcessExit): void {
    if (record.generation !== generation || (record.connection === null && record.state !== 'starting')) return;
    clearTimeout(record.readyTimer);
    const policy = this.options.restartPolicy;
    const now = Date.now();
    const expected = record.stopRequested;
    record.connection = null;
    record.lastExit = { code: exit.exitCode, signal: exit.signalCode, at: now };
    const respawn = expected && record.respawnAfterStop && !this.shuttingDown;
    let restartInMs: number | null = null;
    if (!expected) {
      record.crashTimes = [...record.crashTimes, now].filter((at) => now - at <= policy.crashLoopWindowMs);
      if (record.desired && !this.shuttingDown) {
        if (record.readyAt !== null && now - record.readyAt >= policy.stableAfterMs) record.attempt = 0;
        record.attempt += 1;
        restartInMs = restartDelay(record.attempt, policy);
      }
    }
    const error = expected
      ? new GoondanError('E_AGENT_SHUTTING_DOWN', `Agent ${record.address} stopped before answering.`)
      : crashError(record, exit);
    const restart = restartInMs === null ? '' : ` Restarting in ${restartInMs} ms.`;
    // Events that arrived while it stopped for a restart wait for the new process.
    const kept = new Set(respawn ? record.buffer.map((message) => message.payload.id) : []);
    this.options.onExit(record, error, kept, restart);
    if (respawn) {
      record.outstanding = kept;
      record.respawnAfterStop = false;
      record.restarts += 1;
      this.lifecycle(record, { type: 'stopped', exit, killed: !record.acked });
      this.start(record);
      return;
    }
    record.buffer = [];
    record.outstanding.clear();
    for (const waiter of record.readyWaiters.splice(0)) waiter.reject(error);
    if (restartInMs === null) {
      record.state = 'stopped';
      if (expected) this.lifecycle(record, { type: 'stopped', exit, killed: !record.acked });
      else this.lifecycle(record, { type: 'crashed', exit, restartInMs: null, message: error.message });
      this.startWaiting();
      this.options.changed();
      return;
    }
    record.state = record.crashTimes.length >= policy.crashLoopCrashes ? 'crash-loop' : 'backoff';
    record.nextRestartAt = now + restartInMs;
    record.restartTimer = setTimeout(() => {
      if (this.shuttingDown || !record.desired || record.connection) return;
      record.restarts += 1;
      this.startOrWait(record);
    }, restartInMs);
    this.lifecycle(record, { type: 'crashed', exit, restartInMs, message: `${error.message}${restart}` });
    this.startWaiting();
    this.options.changed();
  }

  private lifecycle(
    record: ProcessRecord,
    event: DistributiveOmit<ProcessLifecycleEvent, 'agent' | 'instanceKey'>,
  ): void {
    try {
      this.options.onLifecycle({
        ...event,
        agent: record.agent,
        instanceKey: record.instanceKey,
      } as ProcessLifecycleEvent);
    } catch {
      // Observers cannot break supervision (STYLE habit 8).
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What requests waiting on a crashed process fail with: its own start failure, else E_AGENT_CRASHED. */
function crashError(record: ProcessRecord, exit: ProcessExit): GoondanError {
  const how = exit.signalCode ? `was killed (${exit.signalCode})` : `exited with code ${exit.exitCode}`;
  if (record.failure && record.failure.code !== 'E_AGENT_CRASHED') {
    const cause = record.failure.message.replace(/\.?$/, '.');
    return wireError({ ...record.failure, message: `Agent ${record.address} could not start: ${cause}` });
  }
  const detail = record.failure ? ` ${record.failure.message}` : '';
  return new GoondanError('E_AGENT_CRASHED', `Agent ${record.address} ${how} before answering.${detail}`);
}
