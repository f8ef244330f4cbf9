import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import {
  findToolProcesses,
  killToolProcessTree,
  runtimeTreeMarker,
  TOOL_TREE_VARIABLE,
} from './kill-tool-process-tree.ts';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** Starts `sh` marked with `marker`, which leaves a `setsid` sleeper; resolves with both pids once both run. */
async function markedTree(marker: string, sleeper = 'setsid sleep 1000'): Promise<number[]> {
  const child = Bun.spawn(['sh', '-c', `${sleeper} & echo $!; wait`], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [TOOL_TREE_VARIABLE]: marker },
    stdout: 'pipe',
    stderr: 'ignore',
  });
  const reader = child.stdout.getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const pids = [child.pid, Number(text.trim())];
  started.push(...pids);
  return pids;
}

/**
 * The marked processes once `pids` are all among them: a process caught inside its execve (the setsid sleeper just
 * started) shows no environment for a moment, so a process list read once could miss it on a busy machine.
 */
async function foundAll(marker: string, pids: number[]): Promise<number[]> {
  const deadline = Date.now() + 30_000;
  let found = findToolProcesses(marker);
  while (!pids.every((pid) => found.includes(pid)) && Date.now() < deadline) {
    await Bun.sleep(20);
    found = findToolProcesses(marker);
  }
  return found.sort();
}

/** A killed process its parent has not reaped yet (the state follows the parenthesised command name). */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat[stat.lastIndexOf(')') + 2] === 'Z';
  } catch {
    return true; // gone
  }
}

async function gone(pids: number[]): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  const alive = () => pids.filter((pid) => findToolProcesses(runtimeTreeMarker).includes(pid));
  while (alive().length > 0 && Date.now() < deadline) await Bun.sleep(20);
  return alive().length === 0;
}

describe.skipIf(process.platform !== 'linux')('killToolProcessTree', () => {
  test('kills every process carrying the marker, setsid escapees included, and nothing of a sibling tree', async () => {
    const tree = await markedTree(`${runtimeTreeMarker}.1`);
    const sibling = await markedTree(`${runtimeTreeMarker}.10`);
    expect(await foundAll(`${runtimeTreeMarker}.1`, tree)).toEqual([...tree].sort());
    expect(killToolProcessTree(`${runtimeTreeMarker}.1`)).toBeGreaterThanOrEqual(2);
    expect(await gone(tree)).toBe(true);
    expect(await foundAll(`${runtimeTreeMarker}.10`, sibling)).toEqual([...sibling].sort());
  });

  test("the runtime's marker reaches every tree beneath it", async () => {
    const first = await markedTree(`${runtimeTreeMarker}.7`);
    const second = await markedTree(`${runtimeTreeMarker}.8`);
    killToolProcessTree(runtimeTreeMarker);
    expect(await gone([...first, ...second])).toBe(true);
  });

  test('a child that cleared its environment (as one inside its execve shows it) is found through its parent', async () => {
    const tree = await markedTree(`${runtimeTreeMarker}.3`, 'env -i sleep 1000');
    expect(await foundAll(`${runtimeTreeMarker}.3`, tree)).toEqual([...tree].sort());
    expect(killToolProcessTree(`${runtimeTreeMarker}.3`)).toBeGreaterThanOrEqual(2);
    const deadline = Date.now() + 30_000;
    const alive = () => tree.filter((pid) => existsSync(`/proc/${pid}`) && !zombie(pid));
    while (alive().length > 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(alive()).toEqual([]);
  });
});
