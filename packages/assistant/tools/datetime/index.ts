import type { ToolContext } from '@goondan/core';
import { checkTimeZone, hostTimeZone, isoInZone, offsetTextAt, weekdayNameAt } from '../../src/when/zoned-time.ts';

/** The wall-clock time of `epochMs` in `timeZone`, as ISO 8601 with its offset. */
export function describeInstant(epochMs: number, requestedZone?: string) {
  const timeZone = requestedZone === undefined ? hostTimeZone() : checkTimeZone(requestedZone);
  return {
    iso: isoInZone(epochMs, timeZone),
    timeZone,
    offset: offsetTextAt(epochMs, timeZone),
    weekday: weekdayNameAt(epochMs, timeZone),
    epochMs,
  };
}

export const handlers = {
  now: (_ctx: ToolContext, input: { timeZone?: string }) => describeInstant(Date.now(), input.timeZone),
  /** Loaded on first use: the CLI imports this module on every command. */
  parse: async (_ctx: ToolContext, input: { text: string; timeZone?: string }) => {
    const { parseWhen } = await import('../../src/when/parse-when.ts');
    return parseWhen(input.text, { now: Date.now(), timeZone: input.timeZone ?? hostTimeZone() });
  },
};
