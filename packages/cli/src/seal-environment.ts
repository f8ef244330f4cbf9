import { closeSync, readFileSync, readlinkSync } from 'node:fs';
// Not the barrels of @goondan/core or @goondan/base: they take most of a second to load, which a re-exec would pay
// twice, and `gdn --version` not at all.
import { isSecretVariable, scrubEnvironment } from '@goondan/base/scrub-environment';
import { docsLink } from './docs-link.ts';
import { MEMFD_NAME, reexecWithEnvironment } from './reexec-with-environment.ts';

/** Names the fd of the memfd that holds the real environment, in a re-executed runtime's environment block. */
export const SEALED_ENVIRONMENT_FD = 'GOONDAN_SEALED_ENV_FD';

/**
 * Keeps secrets out of this process's environment block, which any process of the same user (a bash tool
 * running `cat /proc/$PPID/environ`) can read, and which assigning to process.env does not change.
 * When the block holds a secret, the runtime starts itself again in place (execve, same pid) with the block
 * scrubbed and the real environment in a memfd; the new start reads it into process.env and closes it.
 * Linux only; elsewhere, or if that fails, it warns and goes on (docs/security.md#secrets-in-the-environment).
 */
export function sealEnvironment(): void {
  const fdText = process.env[SEALED_ENVIRONMENT_FD];
  // Gone from process.env either way: tools must not inherit it (a nested gdn would take some other fd for it).
  delete process.env[SEALED_ENVIRONMENT_FD];
  if (fdText !== undefined && restore(fdText)) return;
  if (process.platform !== 'linux') return;
  const block = readEnvironmentBlock();
  if (!Object.entries(block).some(([name, value]) => isSecretVariable(name, value))) return;
  try {
    reexecWithEnvironment({ blockEnv: scrubEnvironment(block), handedOver: block, fdVariable: SEALED_ENVIRONMENT_FD });
  } catch (thrown) {
    process.stderr.write(
      `gdn: warning: could not keep secrets out of the process environment (${(thrown as Error).message}); ` +
        `tools may read them in /proc. See ${docsLink('security.md#secrets-in-the-environment')}.\n`,
    );
  }
}

/** Reads the handed-over environment into process.env and closes its fd; false when `fdText` names no such fd. */
function restore(fdText: string): boolean {
  const fd = Number(fdText);
  if (!Number.isInteger(fd) || fd < 3) return false;
  const path = `/proc/self/fd/${fd}`;
  try {
    // Only our memfd: an inherited stray variable may name an fd that is Bun's own.
    if (!readlinkSync(path).startsWith(`/memfd:${MEMFD_NAME}`)) return false;
  } catch {
    return false;
  }
  try {
    // The real environment wins over a .env file Bun may have loaded, as it would without the re-exec.
    Object.assign(process.env, JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>);
  } catch (thrown) {
    // The block was scrubbed already: its secrets are gone from this start; said once, not a stack trace.
    process.stderr.write(
      `gdn: warning: could not read the environment handed over at start (${(thrown as Error).message}); ` +
        `secret variables are not available to this run. See ${docsLink('security.md#secrets-in-the-environment')}.\n`,
    );
  } finally {
    closeSync(fd);
  }
  return true;
}

/** This process's environment block as /proc/self/environ shows it (core's environmentBlock, without core). */
function readEnvironmentBlock(): Record<string, string> {
  const block: Record<string, string> = {};
  for (const variable of readFileSync('/proc/self/environ', 'utf8').split('\0')) {
    const equals = variable.indexOf('=');
    if (equals > 0) block[variable.slice(0, equals)] = variable.slice(equals + 1);
  }
  return block;
}
