import type { AgentEvent } from '../agent/agent-event.ts';
import type { TurnObserver, TurnResult } from '../agent/turn-types.ts';
import type { ApprovalAnswer } from '../permissions/permission-types.ts';
import { QuietTimer } from '../timers/quiet-timer.ts';
import type { JsonValue } from '../types.ts';
import type { AgentsClient } from './agents-client.ts';
import {
  controlEvent,
  eventTypes,
  formatAddress,
  type IpcMessage,
  ORCHESTRATOR,
  type ReplyData,
  replyEvent,
  type SendAckData,
} from './ipc-message.ts';
import type { Transport } from './transport.ts';

/** What the host drives: an AgentInstance, or anything that runs one Turn per event. */
export interface TurnRunner {
  enqueue(event: AgentEvent, options: { signal?: AbortSignal }): Promise<TurnResult>;
  reset?(): void;
  close(): Promise<void>;
  /** Answers a pending approval of the instance (a person decided in the front end driving the swarm). */
  answerApproval?(id: string, answer: ApprovalAnswer): unknown;
  /** Finishes a turn a restart interrupted while it waited for approval. */
  resume?(): Promise<unknown>;
  /** Sent events accepted for this instance and not handled yet (durable), handled first; `done` once handled. */
  inbox?: { pending(): AgentEvent[]; done(...eventIds: string[]): void };
}

/** After this long without a turn, the process collects garbage once. */
const IDLE_COLLECT_MS = 1_000;
/** Handled sends waiting to leave the inbox together (takeFromInbox) before a commit is forced. */
const MAX_HANDLED_SENDS = 512;

interface Running {
  event: AgentEvent;
  controller: AbortController;
}

/**
 * The agent process's side of the protocol: a FIFO of events, one Turn at a time; each request's result goes
 * back as an `agent.reply`, every other turn's end as `runtime.turn.end`. On `shutdown` it refuses what has not
 * started, lets the running turn finish, closes the instance and acks (spec v2.0-b §11.2).
 */
export class AgentProcessHost {
  private readonly address: string;
  private readonly queue: AgentEvent[] = [];
  private runner: TurnRunner | null = null;
  private client: AgentsClient | null = null;
  private running: Running | null = null;
  private pumping = false;
  private draining = false;
  /** The shutdown is a restart: events not started go back to the orchestrator for the new process. */
  private restarting = false;
  private turnsServed = 0;
  /** Turns running in the instance: the host's own, and those the instance starts itself (job completions). */
  private activeTurns = 0;
  /** Events the host queued: their end is reported by `finish`; any other turn's end by the observer. */
  private readonly hostEvents = new Set<string>();
  private idleWaiters: (() => void)[] = [];
  /** Asked to make room while busy (`process.yield`): it offers to stop as soon as it is idle. */
  private yieldWanted = false;
  /** Approvals of this instance waiting for a person: a turn held by one does not delay a shutdown. */
  private readonly waitingApprovals = new Set<string>();
  /** An idle agent process gives back what a burst of turns left behind, once idle for IDLE_COLLECT_MS. */
  private readonly idleCollect: QuietTimer = new QuietTimer({
    quietMs: IDLE_COLLECT_MS,
    unref: true,
    onQuiet: () => (this.pumping || this.activeTurns > 0 ? this.idleCollect.poke() : Bun.gc(true)),
  });
  /** Ids of events taken from the inbox at start: the same event routed again meanwhile is not run twice. */
  private readonly fromInbox = new Set<string>();
  /** Offers to stop once the process has been idle for `idleExitMs` (docs/orchestrator.md#idle-processes). */
  private readonly idleExit: QuietTimer | null;
  /** Work of the instance the host does not see: tool jobs running, requests and sends waiting for answers. */
  private busy: () => boolean = () => false;
  /** Sends whose turn ended, waiting to leave the inbox in one commit; their ends are reported after it. */
  private handledSends: { event: AgentEvent; result: TurnResult }[] = [];
  private inboxCommit: ReturnType<typeof setImmediate> | undefined;

  constructor(
    private readonly options: {
      transport: Transport;
      agent: string;
      instanceKey: string;
      /** Called once the process should end: after the shutdown ack, or when the orchestrator is gone. */
      exit: (code: number) => void;
      observe: boolean;
      /** Messages that came before this host existed (a spare's shutdown right after its config), handled first. */
      earlier?: readonly IpcMessage[];
      /** Idle this long, the process offers to stop (`process.idle`); 0 or absent: never. */
      idleExitMs?: number;
    },
  ) {
    const idleExitMs = options.idleExitMs ?? 0;
    this.idleExit =
      idleExitMs > 0
        ? new QuietTimer({
            quietMs: idleExitMs,
            unref: true,
            onQuiet: () => {
              if (this.idle()) this.notify(eventTypes.idle, {});
              // Asked again after another quiet spell, if the orchestrator had something on its way here.
              this.idleExit?.poke();
            },
          })
        : null;
    this.address = formatAddress(options.agent, options.instanceKey);
    for (const message of options.earlier ?? []) this.receive(message);
    options.transport.onMessage((message) => this.receive(message));
    options.transport.onClose(() => {
      // The orchestrator is gone: nobody can read our replies, and an orphan must not live on.
      for (const running of this.running ? [this.running] : []) running.controller.abort('orchestrator gone');
      options.exit(0);
    });
  }

  /** Starts serving with the opened instance and tells the orchestrator we are ready. */
  attach(runner: TurnRunner, options: { client?: AgentsClient; busy?: () => boolean } = {}): void {
    this.runner = runner;
    this.client = options.client ?? null;
    if (options.busy) this.busy = options.busy;
    this.idleExit?.poke();
    // Sends accepted earlier (a previous run, or before a crash) go first, in the order they were accepted.
    try {
      const queued = new Set(this.queue.map((event) => event.id));
      const stored = (runner.inbox?.pending() ?? []).filter((event) => !queued.has(event.id));
      for (const event of stored) this.fromInbox.add(event.id);
      this.queue.unshift(...stored);
    } catch (thrown) {
      process.stderr.write(`inbox: ${(thrown as Error)?.message ?? String(thrown)}\n`);
    }
    this.notify(eventTypes.ready, {
      pid: process.pid,
      agent: this.options.agent,
      instanceKey: this.options.instanceKey,
    });
    void this.pump();
    // A turn the last process left waiting for approval goes on (its end is reported like a job's turn).
    void runner.resume?.().catch(() => {});
  }

  /** Opening the instance failed: say why (the orchestrator fails waiting requests with this code), then exit. */
  fail(error: { code: string; message: string; suggestion?: string }): void {
    this.notify(eventTypes.failed, error as unknown as JsonValue);
    this.options.exit(1);
  }

  /**
   * Watches every turn of the instance: counts running turns (shutdown waits for them), reports the end of turns
   * the instance started itself (a finished job's `tool.job.completed`), and — when observed — sends runtime
   * notifications (the CLI prints streamed text and tool calls from them).
   */
  observer(): TurnObserver {
    const tracking: TurnObserver = {
      onTurnStart: ({ turnId, traceId, event }) => {
        this.activeTurns += 1;
        if (this.options.observe) {
          this.notify(eventTypes.turnStart, { turnId, traceId, eventId: event.id, eventType: event.type });
        }
      },
      onTurnEnd: (result) => {
        this.activeTurns -= 1;
        if (!this.hostEvents.has(result.eventId)) {
          this.turnsServed += 1;
          this.notify(eventTypes.turnEnd, { eventId: result.eventId, result: result as unknown as JsonValue });
        }
        this.wakeIdle();
      },
      // Approvals always surface: whoever drives the top-level turn must be able to answer them.
      onApprovalRequested: (record) => {
        this.waitingApprovals.add(record.id);
        this.notify(eventTypes.approvalRequested, record as unknown as JsonValue);
        if (this.draining) this.wakeIdle();
      },
      onApprovalResolved: (record) => {
        this.waitingApprovals.delete(record.id);
        this.notify(eventTypes.approvalResolved, record as unknown as JsonValue);
      },
    };
    if (!this.options.observe) return tracking;
    return {
      ...tracking,
      onTextDelta: (text) => this.notify(eventTypes.textDelta, { text }),
      onToolCallStart: ({ toolCallId, toolName, args }) =>
        this.notify(eventTypes.toolStart, { toolCallId, toolName, args: args as JsonValue }),
      onToolCallEnd: ({ toolCallId, toolName, result, durationMs }) =>
        this.notify(eventTypes.toolEnd, { toolCallId, toolName, result: result as unknown as JsonValue, durationMs }),
      onModelRetry: (event) => this.notify(eventTypes.modelRetry, { ...event }),
    };
  }

  private receive(message: IpcMessage): void {
    if (message.type === 'shutdown') {
      void this.shutdown(message.payload.reason, message.payload.restart === true);
      return;
    }
    if (message.type !== 'event') return;
    this.idleExit?.poke();
    const event = message.payload;
    if (event.type === eventTypes.reply) {
      this.client?.receiveReply(event.data as unknown as ReplyData);
      return;
    }
    if (event.type === eventTypes.sendAck) {
      this.client?.receiveSendAck(event.data as unknown as SendAckData);
      return;
    }
    if (event.type === eventTypes.requestHold) {
      const { correlationId, held } = (event.data ?? {}) as { correlationId?: string; held?: boolean };
      if (typeof correlationId === 'string') this.client?.holdRequest(correlationId, held === true);
      return;
    }
    if (event.type === eventTypes.bundle || event.type === eventTypes.environment) return;
    if (event.type === eventTypes.yield) {
      this.yieldWanted = !this.idle();
      this.notify(this.yieldWanted ? eventTypes.busy : eventTypes.idle, { yield: true });
      return;
    }
    if (event.type === eventTypes.approvalAnswer) {
      const { id, answer } = (event.data ?? {}) as { id?: string; answer?: ApprovalAnswer };
      try {
        if (typeof id === 'string' && answer) this.runner?.answerApproval?.(id, answer);
      } catch (thrown) {
        process.stderr.write(`approval ${id}: ${(thrown as Error)?.message ?? String(thrown)}\n`);
      }
      return;
    }
    if (event.type === eventTypes.turnCancel) {
      const eventId = (event.data as { eventId?: string } | undefined)?.eventId;
      const running = this.running;
      if (running && running.event.id === eventId) running.controller.abort('cancelled');
      const queued = this.queue.findIndex((candidate) => candidate.id === eventId);
      if (queued >= 0)
        this.refuse(
          this.queue.splice(queued, 1)[0]!,
          'E_AGENT_TURN_FAILED',
          'The event was cancelled before its turn started.',
        );
      return;
    }
    if (this.draining && this.restarting) {
      this.handBack([event]);
      return;
    }
    if (this.draining) {
      this.refuse(event, 'E_AGENT_SHUTTING_DOWN', `Agent ${this.address} is shutting down; the event was not started.`);
      return;
    }
    if (this.fromInbox.has(event.id)) return;
    this.queue.push(event);
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping || !this.runner) return;
    this.pumping = true;
    try {
      const runner = this.runner;
      for (let event = this.queue.shift(); event; event = this.queue.shift()) {
        if (event.type === eventTypes.reset) {
          // A reset that fails (its files removed, E_STORE_REMOVED; a full disk) is answered, not left to hang.
          let error: TurnResult['error'];
          try {
            runner.reset?.();
          } catch (thrown) {
            const coded = thrown as { code?: unknown; message?: unknown; suggestion?: unknown };
            error = {
              code: typeof coded?.code === 'string' ? coded.code : 'E_TURN_FAILED',
              message: String(coded?.message ?? thrown),
              ...(typeof coded?.suggestion === 'string' ? { suggestion: coded.suggestion } : {}),
            };
          }
          this.finish(event, {
            turnId: '',
            traceId: '',
            eventId: event.id,
            status: error ? 'error' : 'completed',
            text: '',
            steps: 0,
            usage: { inputTokens: 0, outputTokens: 0 },
            ...(error ? { error } : { reason: 'reset' }),
          });
          continue;
        }
        const controller = new AbortController();
        this.running = { event, controller };
        this.hostEvents.add(event.id);
        const result = await runner.enqueue(event, { signal: controller.signal });
        this.hostEvents.delete(event.id);
        this.running = null;
        this.turnsServed += 1;
        if (event.replyTo || !runner.inbox) this.finish(event, result);
        else this.takeFromInbox(event, result);
      }
    } finally {
      this.pumping = false;
      this.running = null;
      this.wakeIdle();
    }
  }

  /**
   * A handled send leaves the inbox before the orchestrator hears its turn ended. Sends handled together (a burst
   * of queued turns) leave it in one commit, just after the last of them; a process killed before that handles
   * them again at its next start (at least once, docs/orchestrator.md).
   */
  private takeFromInbox(event: AgentEvent, result: TurnResult): void {
    this.handledSends.push({ event, result });
    if (this.handledSends.length >= MAX_HANDLED_SENDS) this.commitHandledSends();
    else this.inboxCommit ??= setImmediate(() => this.commitHandledSends());
  }

  private commitHandledSends(): void {
    if (this.inboxCommit !== undefined) clearImmediate(this.inboxCommit);
    this.inboxCommit = undefined;
    const handled = this.handledSends;
    if (handled.length === 0) return;
    this.handledSends = [];
    try {
      this.runner?.inbox?.done(...handled.map(({ event }) => event.id));
    } catch (thrown) {
      process.stderr.write(`inbox: ${(thrown as Error)?.message ?? String(thrown)}\n`);
    }
    for (const { event, result } of handled) this.finish(event, result);
    this.offerYield();
  }

  /** Asked to make room while busy: offers to stop once idle (the orchestrator may no longer need it to). */
  private offerYield(): void {
    if (!this.yieldWanted || !this.idle()) return;
    this.yieldWanted = false;
    this.notify(eventTypes.idle, { yield: true });
  }

  private wakeIdle(): void {
    // A shutdown does not wait for a turn that waits for a person: its approval stays stored for the restart.
    const held = this.draining && this.waitingApprovals.size > 0;
    if ((this.pumping || this.activeTurns > 0) && !held) return;
    if (this.idleWaiters.length > 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.offerYield();
    // DESIGN.md §4: idle RSS budget. One timer, not one per turn.
    this.idleCollect.poke();
    this.idleExit?.poke();
  }

  /** Nothing running, queued or waiting here: no turn, event, approval, unreported send, job or request. */
  private idle(): boolean {
    if (this.draining || this.pumping || this.activeTurns > 0 || this.queue.length > 0) return false;
    if (this.waitingApprovals.size > 0 || this.handledSends.length > 0) return false;
    return !this.busy() && (this.client?.idle() ?? true);
  }

  private finish(event: AgentEvent, result: TurnResult): void {
    const outcome = {
      agent: this.options.agent,
      instanceKey: this.options.instanceKey,
      ...result,
    } as unknown as JsonValue;
    if (event.replyTo) {
      this.send(
        event.replyTo.target,
        replyEvent({
          source: this.options.agent,
          input: result.text,
          data: { correlationId: event.replyTo.correlationId, eventId: event.id, result: outcome },
        }),
      );
    } else {
      this.notify(eventTypes.turnEnd, { eventId: event.id, result: outcome });
    }
  }

  private refuse(event: AgentEvent, code: string, message: string): void {
    if (event.replyTo) {
      this.send(
        event.replyTo.target,
        replyEvent({
          source: this.options.agent,
          data: { correlationId: event.replyTo.correlationId, eventId: event.id, error: { code, message } },
        }),
      );
    } else {
      this.notify(eventTypes.turnEnd, { eventId: event.id, refused: code });
    }
  }

  /**
   * Events not started go back to the orchestrator, which delivers them to the next process (a restart). Those
   * taken from the inbox at start are left out: they are still stored, and the next process reads them there.
   */
  private handBack(events: AgentEvent[]): void {
    const back = events.filter((event) => !this.fromInbox.has(event.id));
    if (back.length > 0) this.notify(eventTypes.requeue, { events: back as unknown as JsonValue });
  }

  private async shutdown(reason: string, restart: boolean): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.restarting = restart;
    if (restart) this.handBack(this.queue.splice(0));
    for (const event of this.queue.splice(0)) {
      this.refuse(
        event,
        'E_AGENT_SHUTTING_DOWN',
        `Agent ${this.address} is shutting down (${reason}); the event was not started.`,
      );
    }
    const held = this.waitingApprovals.size > 0;
    if ((this.pumping || this.activeTurns > 0) && !held)
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.commitHandledSends();
    await this.runner?.close().catch(() => {});
    this.options.transport.send({
      type: 'shutdown_ack',
      from: this.address,
      to: ORCHESTRATOR,
      payload: { turnsServed: this.turnsServed },
    });
    this.options.exit(0);
  }

  private notify(type: string, data: JsonValue): void {
    this.send(ORCHESTRATOR, controlEvent({ type, source: this.options.agent, data }));
  }

  private send(to: string, payload: AgentEvent): void {
    this.options.transport.send({ type: 'event', from: this.address, to, payload });
  }
}
