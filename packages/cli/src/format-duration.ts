import prettyMilliseconds from 'pretty-ms';

/**
 * A duration as people read it: `350ms`, `1.2s`, `1m 3s`, `2h 5m` (pretty-ms). `units` caps how many units are
 * shown (an uptime needs no seconds once it is counted in hours).
 */
export function formatDuration(ms: number, options: { units?: number } = {}): string {
  return prettyMilliseconds(Math.max(0, Math.round(ms)), options.units ? { unitCount: options.units } : {});
}
