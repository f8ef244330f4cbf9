import { existsSync, readFileSync } from 'node:fs';

/** True while `pid` exists and is not a zombie (a zombie has ended; only its parent has not reaped it yet). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until `check` holds; false if it still does not after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(20);
  }
  return true;
}

/** The pids listed one per line in `file`, once it holds `count` of them. */
export async function waitForPids(file: string, count: number, timeoutMs = 30_000): Promise<number[]> {
  const read = () =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /^\d+$/.test(line.trim()))
          .map(Number)
      : [];
  if (!(await waitFor(() => read().length >= count, timeoutMs))) {
    throw new Error(`${file} did not list ${count} pids within ${timeoutMs} ms (has: ${read().join(', ')})`);
  }
  return read();
}

/** Pids of `pids` still running once they all ended or `timeoutMs` passed (empty: none survived). */
export async function survivors(pids: number[], timeoutMs = 30_000): Promise<number[]> {
  await waitFor(() => pids.every((pid) => !isRunning(pid)), timeoutMs);
  return pids.filter(isRunning);
}

/** Ends whatever a failed test left behind, so it does not outlive the suite. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
