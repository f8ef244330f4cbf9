import { GoondanError, type ToolContext } from '@goondan/core';

/** The host's IANA zone, named in results so a default is never silent. */
function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** `+09:00` for a zone at an instant. */
function offsetOf(epochMs: number, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(epochMs)
    .find((part) => part.type === 'timeZoneName')?.value;
  const offset = name?.replace('GMT', '') ?? '';
  return offset === '' ? '+00:00' : offset;
}

function checkedZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw new GoondanError('E_TOOL_INVALID_ARGS', `Unknown time zone '${timeZone}'.`, {
      suggestion: 'Use an IANA time zone name such as Asia/Seoul, Europe/London or America/New_York.',
    });
  }
}

/** The wall-clock time of `epochMs` in `timeZone`, as ISO 8601 with its offset. */
export function describeInstant(epochMs: number, requestedZone?: string) {
  const timeZone = requestedZone === undefined ? hostTimeZone() : checkedZone(requestedZone);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
    })
      .formatToParts(epochMs)
      .map((part) => [part.type, part.value]),
  );
  const offset = offsetOf(epochMs, timeZone);
  return {
    iso: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`,
    timeZone,
    offset,
    weekday: parts.weekday as string,
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
