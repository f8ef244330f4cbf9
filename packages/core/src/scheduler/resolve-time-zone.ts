/** A zone as an error message quotes it: at most 80 characters of what was given. */
const shown = (timeZone: string) => {
  const text = String(timeZone);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

const IANA_SUGGESTION = 'Use an IANA time zone name such as Asia/Seoul, Europe/London or America/New_York.';

/**
 * The canonical IANA name of `timeZone`, or the message and suggestion saying why it is not one. A UTC offset
 * (`+09:00`, `-0530`), which Intl also takes, is refused: it keeps no daylight-saving rules, and an RFC 5545
 * `DTSTART;TZID=` and the scheduler name a zone by its IANA name (a rule in `+09:00` could not be scheduled).
 * A module of its own (`@goondan/core/time-zone`): the assistant's tools check zones with it too.
 */
export function resolveTimeZone(timeZone: string): { zone: string } | { message: string; suggestion: string } {
  let zone: string;
  try {
    zone = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return { message: `Unknown time zone '${shown(timeZone)}'.`, suggestion: IANA_SUGGESTION };
  }
  const offset = /^([+-])(\d\d):(\d\d)$/.exec(zone);
  if (!offset) return { zone };
  const [, sign, hours, minutes] = offset;
  const etc =
    minutes === '00'
      ? `, or Etc/GMT${sign === '+' ? '-' : '+'}${Number(hours)} for a fixed ${zone} (its sign is inverted)`
      : '';
  return {
    message: `'${shown(timeZone)}' is a UTC offset, not a time zone: it keeps no daylight-saving rules.`,
    suggestion: `Use the IANA name of the place, such as Asia/Seoul or America/New_York${etc}.`,
  };
}
