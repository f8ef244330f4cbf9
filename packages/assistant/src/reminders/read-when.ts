import { parseWhen } from '../when/parse-when.ts';

/** A time the tools schedule: one instant, or an RFC 5545 rule (first occurrence given). */
export type ReadWhen =
  | { kind: 'instant'; epochMs: number; notes: string[] }
  | { kind: 'recurring'; rrule: string; description: string; firstEpochMs: number; notes: string[] };

/**
 * Reads a time as people write it (Korean or English, ISO 8601, "in 20 minutes", "매주 월요일 9시"), relative to
 * `now` in `timeZone`. Unreadable, impossible or ambiguous text is the parser's coded error (E_WHEN_UNREADABLE,
 * E_WHEN_INVALID, E_WHEN_AMBIGUOUS).
 */
export async function readWhen(text: string, now: number, timeZone: string): Promise<ReadWhen> {
  const when = await parseWhen(text, { now, timeZone });
  return when.kind === 'instant'
    ? { kind: 'instant', epochMs: when.epochMs, notes: when.notes }
    : {
        kind: 'recurring',
        rrule: when.rrule,
        description: when.description,
        firstEpochMs: when.firstEpochMs,
        notes: when.notes,
      };
}
