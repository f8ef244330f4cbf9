import { readdirSync, readFileSync } from 'node:fs';

/**
 * The variable that marks every process a tool starts (bash commands, stdio MCP servers): descendants inherit it,
 * including those that leave the process group with `setsid`, so the whole tree can be found in /proc and killed.
 */
export const TOOL_TREE_VARIABLE = 'GOONDAN_TOOL_TREE';

/** Marks the trees of this runtime process; each tree adds `.N` to it. */
export const runtimeTreeMarker = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

/** How many times the tree is searched again: a process may fork while the last pass kills. */
const MAX_KILL_PASSES = 5;

/** The parent pid in a `/proc/<pid>/stat` line (the command name, in parentheses, may hold spaces and parentheses). */
function parentPid(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * Pids of processes (other than this one) whose environment holds `marker` or a marker beneath it, and of their
 * descendants whose environment does not (one that cleared it with `env -i`, or one caught inside its execve, when
 * /proc shows no environment for a moment). Linux only.
 */
export function findToolProcesses(marker: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return []; // no /proc (macOS): process groups are all we can kill
  }
  const exact = `${TOOL_TREE_VARIABLE}=${marker}`;
  const found = new Set<number>();
  const unmarked: string[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (environ.split('\0').some((variable) => variable === exact || variable.startsWith(`${exact}.`))) found.add(pid);
    else unmarked.push(entry);
  }
  // Parents are read only when there is a tree to descend from: at the end of most bash calls there is none.
  if (found.size === 0) return [];
  const parents = new Map<number, number>(); // unmarked pid → parent pid
  for (const entry of unmarked) {
    try {
      parents.set(Number(entry), parentPid(readFileSync(`/proc/${entry}/stat`, 'latin1')));
    } catch {
      // Gone.
    }
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (!found.has(parent)) continue;
      found.add(pid);
      parents.delete(pid);
      grew = true;
    }
  }
  return [...found];
}

/** SIGKILL to every process marked with `marker` (or beneath it) and to the groups they lead; returns how many. */
export function killToolProcessTree(marker: string): number {
  let killed = 0;
  for (let pass = 0; pass < MAX_KILL_PASSES; pass++) {
    const pids = findToolProcesses(marker);
    if (pids.length === 0) break;
    for (const pid of pids) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // Not a group leader, or already gone.
        }
      }
    }
    killed += pids.length;
  }
  return killed;
}
