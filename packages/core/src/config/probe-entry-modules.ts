import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A module that does not load within this is killed and reported; a sync loop cannot stall the caller. */
export const entryImportTimeoutMs = 10_000;

/**
 * What a module exports, by name and `typeof`; `handlers` is the same for its `handlers` object, if it has one. A
 * failed import carries what was thrown as plain data (message, stack, Bun's position, referrer and specifier), so
 * the problem can point into the module as it would for an in-process import.
 */
export type EntryProbeReport =
  | { type: 'loaded'; exports: Record<string, string>; handlers: Record<string, string> | null }
  | { type: 'failed'; reason: string; error?: Record<string, unknown> };

const childScript = fileURLToPath(new URL('./entry-probe-child.ts', import.meta.url));
/** Probes run in parallel, but not so many that a bundle with many Tools starves a small machine. */
const maxParallel = 4;

function describeEnd(proc: Bun.Subprocess): string {
  if (proc.signalCode) return `its process was killed by ${proc.signalCode} while it was loading`;
  return `it ended the process (exit code ${proc.exitCode}) before it finished loading`;
}

/** The report the child wrote, if it is there and carries this probe's nonce. */
async function readReport(reportFile: string, nonce: string): Promise<EntryProbeReport | null> {
  const text = await readFile(reportFile, 'utf8').catch(() => '');
  if (!text.startsWith(nonce)) return null;
  try {
    return JSON.parse(text.slice(nonce.length)) as EntryProbeReport;
  } catch {
    return null;
  }
}

/**
 * Imports one module in its own Bun process and reports what it exports. The process is killed at the deadline; a
 * module that exits, crashes or hangs is reported as failed. Its output is discarded (and cannot pose as a report).
 */
async function probeOne(options: { file: string; reportFile: string; timeoutMs: number }): Promise<EntryProbeReport> {
  const { file, reportFile, timeoutMs } = options;
  // The global Web Crypto: importing node:crypto costs ~8 ms, paid by every gdn start (docs/performance.md).
  const nonce = `${crypto.randomUUID()}:`;
  const proc = Bun.spawn([process.execPath, childScript], {
    stdin: new TextEncoder().encode(JSON.stringify({ nonce, file, reportFile })),
    stdout: 'ignore',
    stderr: 'ignore',
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill('SIGKILL');
  }, timeoutMs);
  try {
    await proc.exited;
  } finally {
    clearTimeout(timer);
  }
  const report = await readReport(reportFile, nonce);
  if (report) return report;
  if (timedOut) return { type: 'failed', reason: `it did not finish loading within ${timeoutMs / 1000} s` };
  return { type: 'failed', reason: describeEnd(proc) };
}

/**
 * Imports each entry module in a separate Bun process with a deadline, and reports what each exports, by file.
 * `gdn validate` checks a bundle with this alone; commands that run handlers call it before importing in-process,
 * because a synchronous loop in a module's top level cannot be timed out inside the process that imports it.
 * @example
 * const reports = await probeEntryModules(['/bundle/tools/x.ts']);
 * reports.get('/bundle/tools/x.ts'); // { type: 'loaded', exports: { handlers: 'object' }, handlers: { run: 'function' } }
 */
export async function probeEntryModules(
  files: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<Map<string, EntryProbeReport>> {
  const timeoutMs = options.timeoutMs ?? entryImportTimeoutMs;
  const queue = [...new Set(files)];
  const reports = new Map<string, EntryProbeReport>();
  if (queue.length === 0) return reports;
  const reportDir = await mkdtemp(join(tmpdir(), 'goondan-probe-'));
  let count = 0;
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const reportFile = join(reportDir, `${count++}.json`);
      reports.set(file, await probeOne({ file, reportFile, timeoutMs }));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(maxParallel, queue.length) }, worker));
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
  return reports;
}
