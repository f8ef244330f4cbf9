/**
 * `npm run bench`: runs every bench/*.ts (one process each, one after another) and prints one table of figures
 * with ratios to the peers; `-- --json` prints the same as JSON. Names after `--` pick benches:
 * `npm run bench -- tool-call step`. A bench joins by calling `report` from bench/harness.ts; one that does not
 * still shows the numbers of its own `--json` output.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BenchRow, formatValue, jsonOutput, ROWS_MARKER, ratio, unitOfKey } from './harness.ts';

const here = import.meta.dir;
const notBenches = new Set(['harness.ts', 'run.ts']);
const picked = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const files = readdirSync(here)
  // Tests of the harness (harness.test.ts) run with `npm test`, not as benches.
  .filter(
    (name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !notBenches.has(name) && !name.startsWith('_'),
  )
  .filter((name) => picked.length === 0 || picked.includes(name.replace(/\.ts$/, '')))
  .sort();

interface BenchOutcome {
  bench: string;
  seconds: number;
  rows: BenchRow[];
  error?: string;
}

/** Numbers of a bench's own JSON output, for benches that do not report through the harness. */
function numbersOf(value: unknown, path: string, rows: BenchRow[]): void {
  if (rows.length >= 12) return;
  if (typeof value === 'number') {
    rows.push({ figure: path, unit: unitOfKey(path), ours: value });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) numbersOf(item, `${path}[${index}]`, rows);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) numbersOf(item, path ? `${path}.${key}` : key, rows);
  }
}

/** The line that says why a bench failed: its error, not Bun's closing banner. */
function failureLine(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim());
  return (
    lines.find((line) => /^(error|\w*Error)\b/.test(line)) ??
    lines.filter((line) => line !== '' && !line.startsWith('Bun v')).at(-1) ??
    ''
  );
}

async function runBench(file: string): Promise<BenchOutcome> {
  const bench = file.replace(/\.ts$/, '');
  const started = performance.now();
  const child = Bun.spawn([process.execPath, join(here, file), '--json'], {
    env: { ...process.env, GDN_BENCH_RUNNER: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const seconds = (performance.now() - started) / 1000;
  const lines = stdout.split('\n');
  const marked = lines.find((line) => line.startsWith(ROWS_MARKER));
  if (code !== 0) return { bench, seconds, rows: [], error: `exit ${code}: ${failureLine(stderr)}` };
  if (marked) return { bench, seconds, rows: JSON.parse(marked.slice(ROWS_MARKER.length)) as BenchRow[] };
  const rows: BenchRow[] = [];
  const last = lines.filter((line) => line.trim().startsWith('{')).at(-1);
  if (last) numbersOf(JSON.parse(last), '', rows);
  return { bench, seconds, rows, error: rows.length === 0 ? 'printed no figures' : undefined };
}

const outcomes: BenchOutcome[] = [];
for (const file of files) {
  if (!jsonOutput) process.stderr.write(`running ${file} ... `);
  const outcome = await runBench(file);
  if (!jsonOutput)
    process.stderr.write(`${outcome.seconds.toFixed(1)} s${outcome.error ? ` (${outcome.error})` : ''}\n`);
  outcomes.push(outcome);
}

if (jsonOutput) {
  console.log(
    JSON.stringify(
      outcomes.map((outcome) => ({
        ...outcome,
        rows: outcome.rows.map((row) => ({ ...row, ratio: ratio(row) })),
      })),
    ),
  );
} else {
  const table: string[][] = [['bench', 'figure', 'ours (median)', 'p99', 'peer (median)', 'ratio', 'goal']];
  for (const outcome of outcomes) {
    if (outcome.error && outcome.rows.length === 0)
      table.push([outcome.bench, `(${outcome.error})`, '', '', '', '', '']);
    for (const row of outcome.rows) {
      const r = ratio(row);
      table.push([
        outcome.bench,
        row.figure,
        formatValue(row.ours, row.unit),
        formatValue(row.oursP99, row.unit),
        row.peer === undefined ? '' : `${formatValue(row.peer, row.unit)}${row.peerName ? ` (${row.peerName})` : ''}`,
        r === undefined ? '' : `${r.toFixed(2)}×`,
        row.goal ? `${row.goal}${row.met === undefined ? '' : row.met ? ' ✓' : ' ✗'}` : '',
      ]);
    }
  }
  const widths = table[0]!.map((_, column) => Math.max(...table.map((line) => line[column]!.length)));
  for (const [index, line] of table.entries()) {
    console.log(line.map((cell, column) => cell.padEnd(widths[column]!)).join(' | '));
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
  }
  const failed = outcomes.filter((outcome) => outcome.error && outcome.rows.length === 0);
  if (failed.length > 0) process.exitCode = 1;
}
