import { killToolProcessTree, runtimeTreeMarker, TOOL_TREE_VARIABLE } from './kill-tool-process-tree.ts';
import { ensureProcessGuard } from './process-guard.ts';

let trees = 0;

/** One tool subprocess tree: the variables to add to its environment, and how to kill all of it. */
export interface ToolProcessTree {
  marker: string;
  /** Add these to the environment of the process that starts the tree. */
  variables: Record<string, string>;
  /** SIGKILL to every process still marked with this tree (and to the groups they lead); returns how many. */
  kill(): number;
}

/**
 * A new tree for one tool subprocess. Starts this runtime's process guard, which kills every tree of the runtime
 * when the runtime dies, even of SIGKILL (docs/security.md#process-trees).
 */
export function openToolProcessTree(): ToolProcessTree {
  trees += 1;
  const marker = `${runtimeTreeMarker}.${trees}`;
  ensureProcessGuard();
  return { marker, variables: { [TOOL_TREE_VARIABLE]: marker }, kill: () => killToolProcessTree(marker) };
}
