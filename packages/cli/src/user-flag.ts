import { UsageError } from './terminal.ts';

/** `--user ID` of `command`: 1 to 256 characters, not only spaces (a usage error otherwise). */
export function checkUserFlag(value: string | undefined, command: string): void {
  if (value === undefined) return;
  if (value.trim() === '' || value.length > 256)
    throw new UsageError('--user must be a user id of 1 to 256 characters', command);
}
