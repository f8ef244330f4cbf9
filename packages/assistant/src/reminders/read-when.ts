import { GoondanError } from '@goondan/core';

/** A time the tools schedule: one instant, or an RFC 5545 rule (first occurrence given). */
export type ReadWhen =
  | { kind: 'instant'; epochMs: number; notes: string[] }
  | { kind: 'recurring'; rrule: string; description: string; firstEpochMs: number; notes: string[] };

const units: Record<string, number> = {
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  초: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  분: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  시간: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  일: 86_400_000,
};

/**
 * Reads a time as people write it, relative to `now` in `timeZone`: through parseWhen (src/when/) when it is
 * there, else ISO 8601 with an offset and "in 20 minutes" / "20분 후".
 */
export async function readWhen(text: string, now: number, timeZone: string): Promise<ReadWhen> {
  const parser = await loadParseWhen();
  if (parser) {
    const when = await parser(text, { now, timeZone });
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
  const trimmed = text.trim();
  const delay = /^(?:in\s+)?(\d+(?:\.\d+)?)\s*([a-z가-힣]+)(?:\s*(?:후|뒤))?$/i.exec(trimmed);
  const unit = delay ? units[delay[2]!.toLowerCase()] : undefined;
  if (delay && unit) return { kind: 'instant', epochMs: now + Math.round(Number(delay[1]) * unit), notes: [] };
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(trimmed)) {
    const epochMs = Date.parse(trimmed);
    if (Number.isFinite(epochMs)) return { kind: 'instant', epochMs, notes: [] };
  }
  throw new GoondanError('E_TOOL_INVALID_ARGS', `Cannot read the time '${text}'.`, {
    suggestion: 'Give ISO 8601 with an offset (2026-05-01T09:00:00+09:00) or a delay such as "in 20 minutes".',
  });
}

type ParseWhen = (
  text: string,
  options: { now: number; timeZone: string },
) => Promise<
  | { kind: 'instant'; epochMs: number; notes: string[] }
  | { kind: 'recurring'; rrule: string; description: string; firstEpochMs: number; notes: string[] }
>;

let parseWhen: Promise<ParseWhen | null> | undefined;
function loadParseWhen(): Promise<ParseWhen | null> {
  const path = '../when/parse-when.ts';
  parseWhen ??= import(path).then(
    (module: { parseWhen?: ParseWhen }) => module.parseWhen ?? null,
    () => null,
  );
  return parseWhen;
}
