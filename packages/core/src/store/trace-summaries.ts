import type { Database } from 'bun:sqlite';
import { toStoreError } from './to-store-error.ts';
import type { SpanStatus } from './trace-store.ts';

/** One trace as one instance stored it, summed up without reading its spans (a list of traces). */
export interface TraceSummary {
  traceId: string;
  startedAt: number;
  /** The latest end (or start, for running spans) of its spans here. */
  endedAt: number;
  spans: number;
  running: number;
  errors: number;
  /** Status of the trace's root turn when this instance stored it (null: the root lives elsewhere). */
  rootStatus: SpanStatus | null;
  /** Tool names called, error codes met. */
  tools: string[];
  errorCodes: string[];
}

interface SummaryRow {
  trace_id: string;
  started_at: number;
  ended_at: number;
  spans: number;
  running: number;
  errors: number;
  root_status: SpanStatus | null;
  tools: string | null;
  codes: string | null;
}

/** GROUP_CONCAT(DISTINCT …) joins with commas, which tool names and error codes never contain. */
const list = (text: string | null) => (text ? text.split(',').filter((item) => item !== '') : []);

/**
 * Summaries of the `limit` traces of one instance database that started last (within `since`..`until`, epoch ms),
 * newest first: one query, no span rows read into memory.
 *
 * @example
 * traceSummaries(db, { limit: 50 }).map((trace) => trace.traceId)
 */
export function traceSummaries(
  db: Database,
  options: { limit: number; since?: number; until?: number },
): TraceSummary[] {
  const sql = `
    WITH recent AS (
      SELECT trace_id, MIN(started_at) AS first FROM trace_spans GROUP BY trace_id
      HAVING first >= ? AND first <= ? ORDER BY first DESC LIMIT ?
    )
    SELECT s.trace_id, recent.first AS started_at, MAX(COALESCE(s.ended_at, s.started_at)) AS ended_at,
      COUNT(*) AS spans, SUM(s.status = 'running') AS running, SUM(s.status = 'error') AS errors,
      MAX(CASE WHEN s.parent_span_id IS NULL AND s.kind = 'turn' THEN s.status END) AS root_status,
      GROUP_CONCAT(DISTINCT json_extract(s.attributes, '$.toolName')) AS tools,
      GROUP_CONCAT(DISTINCT json_extract(s.attributes, '$.errorCode')) AS codes
    FROM trace_spans s JOIN recent ON recent.trace_id = s.trace_id
    GROUP BY s.trace_id ORDER BY started_at DESC`;
  try {
    return db
      .query<SummaryRow, [number, number, number]>(sql)
      .all(options.since ?? 0, options.until ?? Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(options.limit)))
      .map((row) => ({
        traceId: row.trace_id,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        spans: row.spans,
        running: row.running,
        errors: row.errors,
        rootStatus: row.root_status,
        tools: list(row.tools),
        errorCodes: list(row.codes),
      }));
  } catch (error) {
    throw toStoreError(error, db.filename);
  }
}
