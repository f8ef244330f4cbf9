/**
 * The process guard (started by ensureProcessGuard as `bun process-guard-main.ts MARKER PARENT_PID`): waits until
 * its parent, a Goondan runtime process, is gone, then kills every tool process tree marked by it and exits.
 */
import { killToolProcessTree } from './kill-tool-process-tree.ts';

const POLL_MS = 200;
const [marker, parentText] = process.argv.slice(2);
const parentPid = Number(parentText);

if (!marker || !Number.isInteger(parentPid)) process.exit(2);
const timer = setInterval(() => {
  // Re-parented: the runtime is gone (even a SIGKILL ends here).
  if (process.ppid === parentPid) return;
  clearInterval(timer);
  killToolProcessTree(marker);
  process.exit(0);
}, POLL_MS);
