import type { Database } from 'bun:sqlite';
import { redactSecrets } from '../permissions/redact-secrets.ts';
import type { JsonObject, JsonValue } from '../types.ts';
import { toStoreError } from './to-store-error.ts';

export type SpanKind = 'turn' | 'step' | 'model' | 'tool';
export type SpanStatus = 'ok' | 'error' | 'running' | 'cancelled';

/** One span of a trace. Ids come from newTraceId / newSpanId; times are epoch milliseconds. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** Null for a root span; may name a span stored by another agent instance when a trace crosses agents. */
  parentSpanId: string | null;
  kind: SpanKind;
  name: string;
  startedAt: number;
  endedAt: number | null;
  status: SpanStatus;
  /**
   * For example token usage, tool name, `error.code`, `error.message`, agent, instance. Never secrets: recordSpan
   * redacts them (redactSecrets) before they are written.
   */
  attributes: Record<string, JsonValue>;
}

/** A trace as stored by one instance: its spans ordered by start time. */
export interface TraceRecord {
  traceId: string;
  /** Start of the earliest stored span, which is the root span whenever the root was recorded here. */
  startedAt: number;
  spans: SpanRecord[];
}

interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  kind: SpanKind;
  name: string;
  started_at: number;
  ended_at: number | null;
  status: SpanStatus;
  attributes: string;
}

type SpanParams = [string, string, string | null, string, string, number, number | null, string, string];

/**
 * The stored attributes, or `{ unreadableAttributes: true }` when the text is not a JSON object (a damaged row):
 * one bad row must not keep `gdn trace`, the console or the OTLP output from showing the rest.
 */
function attributesOf(text: string): Record<string, JsonValue> {
  try {
    const value = JSON.parse(text) as JsonValue;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch {
    // Falls through to the marker.
  }
  return { unreadableAttributes: true };
}

function spanOf(row: SpanRow): SpanRecord {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    kind: row.kind,
    name: row.name,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    status: row.status,
    attributes: attributesOf(row.attributes),
  };
}

/** Every column of trace_spans but the rowid, in the order of the table. */
const spanColumns = 'span_id, trace_id, parent_span_id, kind, name, started_at, ended_at, status, attributes';

const recentTraceIdsSql =
  'SELECT trace_id, MIN(started_at) AS started_at FROM trace_spans GROUP BY trace_id ORDER BY started_at DESC, trace_id LIMIT ?';

/**
 * The spans of one agent instance. A span is written when it starts (status `running`) and written again,
 * whole, when it ends; the later write replaces the earlier one.
 *
 * @example
 * const traces = new TraceStore(db);
 * const span = { traceId: newTraceId(), spanId: newSpanId(), parentSpanId: null, kind: 'turn', name: 'turn',
 *   startedAt: Date.now(), endedAt: null, status: 'running', attributes: { agent: 'assistant' } } as const;
 * traces.recordSpan(span);
 * traces.recordSpan({ ...span, endedAt: Date.now(), status: 'ok' });
 */
export class TraceStore {
  /**
   * `secretValues`: the values of the instance's secret environment variables (secretValuesFromEnv), redacted from
   * names and attributes besides the credential shapes and secret keys.
   */
  constructor(
    private readonly db: Database,
    private readonly options: { secretValues?: readonly string[] } = {},
  ) {}

  /** Inserts the span, or replaces the stored span with the same spanId. Secrets are redacted on the way in. */
  recordSpan(span: SpanRecord): void {
    try {
      this.writeSpan(span);
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  private writeSpan(span: SpanRecord): void {
    const redaction = this.options.secretValues ? { secretValues: this.options.secretValues } : {};
    const attributes = redactSecrets((span.attributes ?? {}) as JsonObject, redaction);
    this.db
      .query<unknown, SpanParams>(
        `INSERT INTO trace_spans
           (trace_id, span_id, parent_span_id, kind, name, started_at, ended_at, status, attributes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (span_id) DO UPDATE SET
           trace_id = excluded.trace_id, parent_span_id = excluded.parent_span_id, kind = excluded.kind,
           name = excluded.name, started_at = excluded.started_at, ended_at = excluded.ended_at,
           status = excluded.status, attributes = excluded.attributes`,
      )
      .run(
        span.traceId,
        span.spanId,
        span.parentSpanId,
        span.kind,
        redactSecrets(span.name, redaction) as string,
        span.startedAt,
        span.endedAt,
        span.status,
        JSON.stringify(attributes),
      );
  }

  /** Records several spans in one transaction (one commit instead of one per span). */
  recordSpans(spans: readonly SpanRecord[]): void {
    if (spans.length === 0) return;
    // A span recorded twice in one batch (running, then ended) is written once, as it was last, in the place it
    // was first recorded (ties of start time keep that order): the later write would replace the earlier whole.
    const last = new Map<string, SpanRecord>();
    for (const span of spans) last.set(span.spanId, span);
    try {
      this.db.transaction(() => {
        for (const span of last.values()) this.writeSpan(span);
      })();
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  /**
   * Closes the spans a process that died left `running` (every trace but `keep`, a turn that will resume): status
   * `cancelled`, attribute `interrupted: true`, ended at the last moment its trace is known to have lived (the latest
   * start or end in it). Only the instance's writer calls it, before it runs a turn. Returns how many it closed.
   */
  closeInterrupted(keep: readonly string[] = []): number {
    const running = this.db
      .query<{ trace_id: string }, []>("SELECT DISTINCT trace_id FROM trace_spans WHERE status = 'running'")
      .all()
      .map((row) => row.trace_id)
      .filter((traceId) => !keep.includes(traceId));
    if (running.length === 0) return 0;
    let closed = 0;
    this.db.transaction(() => {
      for (const traceId of running) {
        closed += this.db
          .query<unknown, [string, string]>(
            `UPDATE trace_spans SET status = 'cancelled',
               ended_at = (SELECT MAX(COALESCE(ended_at, started_at)) FROM trace_spans WHERE trace_id = ?),
               attributes = json_set(attributes, '$.interrupted', json('true'))
             WHERE trace_id = ? AND status = 'running'`,
          )
          .run(traceId, traceId).changes;
      }
    })();
    return closed;
  }

  /** Spans of one trace, by start time (ties in the order they were first recorded). */
  spansOfTrace(traceId: string): SpanRecord[] {
    return this.db
      .query<SpanRow, [string]>('SELECT * FROM trace_spans WHERE trace_id = ? ORDER BY started_at, rowid')
      .all(traceId)
      .map(spanOf);
  }

  /** The `limit` traces that started last, newest first, each with its spans. */
  recentTraces(limit: number): TraceRecord[] {
    const read = this.db.transaction(() =>
      this.db
        .query<{ trace_id: string; started_at: number }, [number]>(recentTraceIdsSql)
        .all(Math.max(0, Math.floor(limit)))
        .map((row) => ({ traceId: row.trace_id, startedAt: row.started_at, spans: this.spansOfTrace(row.trace_id) })),
    );
    return read.deferred();
  }

  /**
   * Deletes every trace but the `keep` that started last; returns how many spans went. Bounds the table.
   *
   * One transaction. Deleting row by row costs an update of every index per span (about 15 s for a million spans on
   * a laptop, the write lock held all along), so when more spans go than stay (a database from before pruning, a
   * burst of huge traces) the spans kept are copied aside, the table is emptied at once (SQLite's truncate
   * optimization frees its pages without visiting rows) and they are put back with their rowids: the cost follows
   * what is kept, not what goes.
   */
  pruneTraces(keep: number): number {
    const limit = Math.max(0, Math.floor(keep));
    const prune = this.db.transaction(() => {
      this.db.run('CREATE TEMP TABLE IF NOT EXISTS prune_kept_traces (trace_id TEXT PRIMARY KEY)');
      this.db.run('DELETE FROM temp.prune_kept_traces');
      this.db
        .query<unknown, [number]>(
          `INSERT INTO temp.prune_kept_traces (trace_id) SELECT trace_id FROM (${recentTraceIdsSql})`,
        )
        .run(limit);
      const total = this.db.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM trace_spans').get()?.n ?? 0;
      const kept =
        this.db
          .query<{ n: number }, []>(
            'SELECT COUNT(*) AS n FROM trace_spans WHERE trace_id IN (SELECT trace_id FROM temp.prune_kept_traces)',
          )
          .get()?.n ?? 0;
      const going = total - kept;
      if (going > 0 && going <= Math.max(kept, 10_000)) {
        this.db.run('DELETE FROM trace_spans WHERE trace_id NOT IN (SELECT trace_id FROM temp.prune_kept_traces)');
      } else if (going > 0) {
        this.db.run('DROP TABLE IF EXISTS temp.prune_kept_spans');
        this.db.run(
          `CREATE TEMP TABLE prune_kept_spans AS SELECT rowid AS kept_rowid, ${spanColumns} FROM trace_spans
           WHERE trace_id IN (SELECT trace_id FROM temp.prune_kept_traces)`,
        );
        this.db.run('DELETE FROM trace_spans');
        this.db.run(
          `INSERT INTO trace_spans (rowid, ${spanColumns}) SELECT kept_rowid, ${spanColumns} FROM temp.prune_kept_spans`,
        );
        this.db.run('DROP TABLE temp.prune_kept_spans');
      }
      this.db.run('DELETE FROM temp.prune_kept_traces');
      return going;
    });
    try {
      return prune.immediate();
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }
}
