import type { ConversationStore } from '../store/conversation-store.ts';
import type { SpanRecord, TraceStore } from '../store/trace-store.ts';
import { QuietTimer } from '../timers/quiet-timer.ts';

/** Traces kept per instance; older ones are pruned (TraceWrites.turnEnded) so the database stays bounded. */
export const MAX_STORED_TRACES = 1000;
/** Ids of handled events kept to recognise redeliveries (pruned with the traces). */
export const MAX_HANDLED_EVENT_IDS = 10_000;

/** When an ended turn's spans are written (see TraceWrites.turnEnded). */
export interface SpanWriteTiming {
  /** Written once no turn has ended for this long. */
  quietMs: number;
  /** While turns keep ending, written at the latest this long after the first unwritten end. */
  maxDelayMs: number;
}

/**
 * Spans of ended turns are written once no turn has ended for 2 ms, at the latest 20 ms after the first of them
 * ended, or at once when MAX_DEFERRED_SPANS wait.
 */
const DEFAULT_SPAN_WRITES: SpanWriteTiming = { quietMs: 2, maxDelayMs: 20 };
const MAX_DEFERRED_SPANS = 512;
/** Pruning is due every 100 turns; it waits for a second without turns ending, or runs at 1000 turns. */
const PRUNE_DUE_TURNS = 100;
const PRUNE_FORCED_TURNS = 1000;
const PRUNE_IDLE_MS = 1000;

/**
 * An agent instance's spans on their way to the trace store, and the pruning that keeps the store bounded. Spans
 * are buffered and written in the instance's commits (one per step, not per span); traces are observers, so a
 * failed write or prune is reported, never allowed to break the turn.
 */
export class TraceWrites {
  private buffer: SpanRecord[] = [];
  /** The write of ended turns' last spans, after their results went back. */
  private readonly endWrite: QuietTimer;
  private turnsSincePrune = 0;
  /** Pruning once it is due: after a second without a turn ending. */
  private readonly pruneWhenQuiet: QuietTimer;
  private closed = false;

  constructor(
    private readonly options: {
      traces: TraceStore;
      conversation: ConversationStore;
      /** The instance's commit: runs the write in one transaction with the audit rows still queued. */
      commit: (write: () => void) => void;
      warn: (line: string) => void;
      timing?: SpanWriteTiming;
    },
  ) {
    this.endWrite = new QuietTimer({
      ...(options.timing ?? DEFAULT_SPAN_WRITES),
      onQuiet: () => this.writeEndedTurns(),
    });
    this.pruneWhenQuiet = new QuietTimer({
      quietMs: PRUNE_IDLE_MS,
      unref: true,
      onQuiet: () => {
        if (!this.closed) this.pruneNow();
      },
    });
  }

  add(span: SpanRecord): void {
    this.buffer.push(span);
  }

  /** Forgets the buffered spans unwritten (a preview's step, which is not a turn). */
  discard(): void {
    this.buffer = [];
  }

  /** Writes the buffered spans inside a commit the caller is making (its messages and these spans together). */
  writeInto(): void {
    if (this.buffer.length === 0) return;
    const spans = this.buffer;
    this.buffer = [];
    try {
      this.options.traces.recordSpans(spans);
    } catch (thrown) {
      this.options.warn(`trace write failed: ${(thrown as Error).message}`);
    }
  }

  /** Writes the buffered spans in a commit of their own, with the audit rows still queued. */
  flush(): void {
    if (this.buffer.length === 0) return;
    try {
      this.options.commit(() => this.writeInto());
    } catch (thrown) {
      this.options.warn(`trace write failed: ${(thrown as Error).message}`);
    }
  }

  /**
   * A turn's last span is written after its result is handed back (an agent process sends its reply first), once
   * the instance has been quiet for 2 ms, or 20 ms after the first unwritten end while turns keep ending (the
   * timing option): a caller's run of requests or a burst of sends commits its spans in a few large writes, not one
   * per 5 ms (each commit writes every index page it touched, and span ids are random, so a batch's cost per span
   * falls as it grows). Any commit before then takes them along (writeInto); closing writes them. As with the audit
   * rows' timer, a process killed meanwhile loses those turns' end (their start is on disk with their input).
   *
   * Pruning scans every stored span (milliseconds, as long as several turns): once due, it waits until no turn has
   * ended for a second, so a busy instance does not pay it between a request and its reply; an instance that is
   * never idle prunes every PRUNE_FORCED_TURNS turns, after a span write.
   */
  turnEnded(): void {
    if (this.buffer.length >= MAX_DEFERRED_SPANS) this.writeEndedTurns();
    else this.endWrite.poke();
    this.turnsSincePrune += 1;
    if (this.turnsSincePrune >= PRUNE_DUE_TURNS) this.pruneWhenQuiet.poke();
  }

  /** Writes what is left; no pruning after this. */
  close(): void {
    this.closed = true;
    this.pruneWhenQuiet.cancel();
    this.writeEndedTurns();
  }

  private writeEndedTurns(): void {
    this.endWrite.cancel();
    this.flush();
    if (this.turnsSincePrune >= PRUNE_FORCED_TURNS && !this.closed) this.pruneNow();
  }

  private pruneNow(): void {
    this.pruneWhenQuiet.cancel();
    this.turnsSincePrune = 0;
    try {
      this.options.traces.pruneTraces(MAX_STORED_TRACES);
      this.options.conversation.pruneHandledEvents(MAX_HANDLED_EVENT_IDS);
    } catch (thrown) {
      this.options.warn(`trace pruning failed: ${(thrown as Error).message}`);
    }
  }
}
