import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { type SpanRecord, type TraceRecord, TraceStore } from '../store/trace-store.ts';

/** Every instance database under `<state>/instances/<agent>/<instance>/state.db`. */
function instanceDatabases(base: string): string[] {
  const root = join(base, 'instances');
  if (!existsSync(root)) return [];
  const files: string[] = [];
  for (const agent of readdirSync(root, { withFileTypes: true })) {
    if (!agent.isDirectory()) continue;
    for (const instance of readdirSync(join(root, agent.name), { withFileTypes: true })) {
      const file = join(root, agent.name, instance.name, 'state.db');
      if (instance.isDirectory() && existsSync(file)) files.push(file);
    }
  }
  return files;
}

/**
 * A trace crosses agents (DESIGN.md §2): a callee's turn keeps the caller's traceId and hangs under the caller's
 * tool-call span, but each instance stores its own spans. This adds to each trace the spans the other instances
 * of the bundle stored under the same traceId, so the whole chain prints as one tree.
 */
export function joinSwarmTraces(options: {
  rootDir: string;
  stateDir?: string;
  traces: TraceRecord[];
  /** The database the traces came from (not read again). */
  ownDatabase: string;
}): TraceRecord[] {
  const { traces } = options;
  if (traces.length === 0) return traces;
  const base = options.stateDir ?? join(options.rootDir, '.goondan');
  const others = instanceDatabases(base).filter((file) => resolve(file) !== resolve(options.ownDatabase));
  if (others.length === 0) return traces;
  const extra = new Map<string, SpanRecord[]>(traces.map((trace) => [trace.traceId, []]));
  for (const file of others) {
    const db = openInstanceDatabase(file);
    try {
      const store = new TraceStore(db);
      for (const trace of traces) extra.get(trace.traceId)!.push(...store.spansOfTrace(trace.traceId));
    } finally {
      db.close();
    }
  }
  return traces.map((trace) => {
    const seen = new Set(trace.spans.map((span) => span.spanId));
    const added = extra.get(trace.traceId)!.filter((span) => !seen.has(span.spanId));
    if (added.length === 0) return trace;
    const spans = [...trace.spans, ...added].sort((a, b) => a.startedAt - b.startedAt);
    return { ...trace, startedAt: Math.min(trace.startedAt, spans[0]!.startedAt), spans };
  });
}
