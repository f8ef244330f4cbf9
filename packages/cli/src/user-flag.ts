import { isUserId, USER_ID_RULE } from '@goondan/core/session';
import { UsageError } from './terminal.ts';

/** `--user ID` of `command` (gdn run, gdn chat): a usage error unless it is a user id (USER_ID_RULE). */
export function checkUserFlag(value: string | undefined, command: string): void {
  if (value !== undefined && !isUserId(value)) throw new UsageError(`--user must be ${USER_ID_RULE}`, command);
}
