import { readFileSync } from 'node:fs';

/**
 * The environment block this process was started with: what any process of the same user can read in
 * /proc/PID/environ. Assigning to process.env later does not change it. Linux only; elsewhere process.env.
 * A runtime started by `gdn` holds no secrets in it (docs/security.md#secrets-in-the-environment), so it is what
 * the processes the runtime starts may get in theirs.
 */
export function environmentBlock(): Record<string, string> {
  let text: string;
  try {
    text = readFileSync('/proc/self/environ', 'utf8');
  } catch {
    const copy: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) copy[name] = value;
    return copy;
  }
  const block: Record<string, string> = {};
  for (const variable of text.split('\0')) {
    const equals = variable.indexOf('=');
    if (equals > 0) block[variable.slice(0, equals)] = variable.slice(equals + 1);
  }
  return block;
}
