import { UsageError } from './terminal.ts';
import { wholeNumber } from './whole-number.ts';

/**
 * `--grace MS` of `command` (gdn run, gdn chat): the milliseconds, undefined when not given, a usage error unless
 * digits. Checked before the bundle opens, with or without a Swarm: a bundle without one never reads it, so a
 * mistake there went unnoticed until the bundle had one.
 */
export function graceFlag(value: string | undefined, command: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = wholeNumber(value);
  if (ms === null) throw new UsageError(`--grace must be a whole number of milliseconds, got '${value}'`, command);
  return ms;
}
