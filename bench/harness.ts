/**
 * What every bench shares: interleaved rounds of ours and a peer in one process (warm-up first), median and p99,
 * and one way to hand figures to `npm run bench` (bench/run.ts), which runs every bench/*.ts and prints one table.
 *
 * A bench calls `report(rows, printOwn)`: run by the runner it prints its rows as one marked JSON line; run alone
 * (`bun bench/x.ts`) it prints its own text, or the rows as JSON with `--json`.
 */

/** One figure of a bench: ours, and the peer's when there is one doing the same work. */
export interface BenchRow {
  figure: string;
  /** '' for a plain count (a number of tools, calls, entries). */
  unit: 'ns' | 'µs' | 'ms' | 'MB' | 'ops/s' | '×' | '';
  ours: number;
  oursP99?: number;
  peer?: number;
  peerP99?: number;
  /** Who the peer is, e.g. "AI SDK loop"; say in `note` what it does less. */
  peerName?: string;
  /** The goal, as text: "≤ 1.3× peer", "≤ 150 ms". */
  goal?: string;
  /** Whether the goal is met; left out when the figure has no goal. */
  met?: boolean;
  note?: string;
}

/** The line prefix bench/run.ts looks for. */
export const ROWS_MARKER = '@@gdn-bench-rows ';

export const jsonOutput = process.argv.includes('--json');

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

export function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

export interface Side {
  median: number;
  p99: number;
  samples: number[];
}

/**
 * Runs `ours` and `peer` in alternating order for `rounds` rounds after `warmup` rounds; each returns (or resolves
 * to) one sample, in any unit. Alternating the order keeps drift (GC, a busy neighbour, CPU clocks) off one side.
 */
export async function compare(options: {
  rounds: number;
  warmup?: number;
  ours: () => number | Promise<number>;
  peer: () => number | Promise<number>;
}): Promise<{ ours: Side; peer: Side }> {
  const ours: number[] = [];
  const peer: number[] = [];
  const total = (options.warmup ?? 0) + options.rounds;
  for (let round = 0; round < total; round += 1) {
    const keep = round >= (options.warmup ?? 0);
    const first = round % 2 === 0;
    const a = first ? await options.ours() : await options.peer();
    const b = first ? await options.peer() : await options.ours();
    if (!keep) continue;
    ours.push(first ? a : b);
    peer.push(first ? b : a);
  }
  return { ours: side(ours), peer: side(peer) };
}

/** Median and p99 of samples taken by hand. */
export function side(samples: number[]): Side {
  return { median: median(samples), p99: percentile(samples, 0.99), samples };
}

/**
 * Nanoseconds of this process's CPU time (user + system) per operation for `batch` back-to-back runs of `work`.
 * CPU time, not the wall clock: on a shared, busy machine the wall clock mostly measures the wait for a core.
 */
export async function timeBatch(batch: number, work: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  for (let index = 0; index < batch; index += 1) {
    const value = work();
    if (value instanceof Promise) await value;
  }
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / batch;
}

/** CPU nanoseconds (user + system) `work` takes once; for work long enough for the clock's microseconds. */
export async function cpuTime(work: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  const value = work();
  if (value instanceof Promise) await value;
  const used = process.cpuUsage(start);
  return (used.user + used.system) * 1000;
}

export function ratio(row: BenchRow): number | undefined {
  return row.peer === undefined || row.peer === 0 ? undefined : row.ours / row.peer;
}

/**
 * The unit of a figure in a bench's own JSON, from the name it has there: `builderUs`, `medianMs`,
 * `insertPerSecond`, `rssMb`, `ratio`, or a parent's name (`dueToAppendedMs.median`); anything else is a count.
 */
export function unitOfKey(path: string): BenchRow['unit'] {
  for (const segment of path.split('.').reverse()) {
    const key = segment.replace(/\[\d+\]$/, '');
    if (/Ns$/.test(key)) return 'ns';
    if (/Us$/.test(key)) return 'µs';
    if (/Ms$/.test(key)) return 'ms';
    if (/(Mb|MB)$/.test(key)) return 'MB';
    if (/PerSec(ond)?$/.test(key)) return 'ops/s';
    if (/^ratio$|Ratio$/.test(key)) return '×';
  }
  return '';
}

export function formatValue(value: number | undefined, unit: BenchRow['unit']): string {
  if (value === undefined || Number.isNaN(value)) return '';
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return unit === '' ? value.toFixed(digits) : `${value.toFixed(digits)} ${unit}`;
}

/** Hands the rows to the runner, or prints them (`--json`) or the bench's own text when run alone. */
export function report(rows: BenchRow[], printOwn?: () => void): void {
  if (process.env.GDN_BENCH_RUNNER === '1') {
    console.log(`${ROWS_MARKER}${JSON.stringify(rows)}`);
    return;
  }
  if (jsonOutput) {
    console.log(JSON.stringify({ rows }));
    return;
  }
  if (printOwn) {
    printOwn();
    return;
  }
  for (const row of rows) {
    const r = ratio(row);
    console.log(
      `  ${row.figure.padEnd(58)} ${formatValue(row.ours, row.unit).padStart(11)}` +
        (row.peer === undefined ? '' : `  ${row.peerName ?? 'peer'} ${formatValue(row.peer, row.unit)}`) +
        (r === undefined ? '' : `  ${r.toFixed(2)}×`) +
        (row.goal ? `  goal ${row.goal}${row.met === undefined ? '' : row.met ? ' ✓' : ' ✗'}` : ''),
    );
  }
}
