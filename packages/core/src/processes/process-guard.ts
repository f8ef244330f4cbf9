import { fileURLToPath } from 'node:url';
import { killToolProcessTree, runtimeTreeMarker } from './kill-tool-process-tree.ts';

const guardMain = fileURLToPath(new URL('./process-guard-main.ts', import.meta.url));
let started = false;

/**
 * Starts, once per runtime process, a small Bun process that outlives it: when this process is gone (exited,
 * crashed or SIGKILLed), the guard kills every tool process tree it left (docs/security.md#process-trees).
 * On a normal exit the runtime kills them itself first. Linux only (it finds the trees through /proc).
 */
export function ensureProcessGuard(): void {
  if (started || process.platform !== 'linux') return;
  started = true;
  process.on('exit', () => killToolProcessTree(runtimeTreeMarker));
  try {
    const guard = Bun.spawn([process.execPath, guardMain, runtimeTreeMarker, String(process.pid)], {
      // No secrets and no tree marker: the guard is not one of the processes it kills.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      // Nothing inherited: a reader of the runtime's output would otherwise wait for the guard to end too.
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'ignore',
      // A group of its own: a Ctrl-C at the terminal or a kill of the runtime's group does not reach it.
      detached: true,
    });
    guard.unref();
  } catch {
    // Without a guard the trees are still killed at the end of each call and at a normal exit.
  }
}
