/** A count part of an RRULE (INTERVAL, COUNT) that RFC 5545 does not allow, and how ical.js reads it anyway. */
export interface OddRulePart {
  part: 'INTERVAL' | 'COUNT';
  value: string;
  /** How ical.js reads it ("as INTERVAL=1"), or null when it cannot read it at all (no number). */
  readAs: string | null;
}

/**
 * The INTERVAL and COUNT parts of an RRULE value (`FREQ=DAILY;INTERVAL=0`) that are not a whole number from 1
 * (RFC 5545 3.3.10: "1*DIGIT", and an INTERVAL or COUNT of 0 means nothing). ical.js reads the leading digits
 * (parseInt), an INTERVAL below 1 as 1, a COUNT of 0 as no COUNT, and a negative COUNT as no occurrence at all.
 */
export function oddRuleParts(rule: string): OddRulePart[] {
  const odd: OddRulePart[] = [];
  for (const piece of rule.split(';')) {
    const at = piece.indexOf('=');
    const name = piece.slice(0, at).trim().toUpperCase();
    if (at < 0 || (name !== 'INTERVAL' && name !== 'COUNT')) continue;
    const value = piece.slice(at + 1).trim();
    if (/^\d+$/.test(value) && Number(value) >= 1) continue;
    const read = Number.parseInt(value, 10);
    let readAs: string | null;
    if (Number.isNaN(read)) readAs = null;
    else if (name === 'INTERVAL') readAs = `as INTERVAL=${Math.max(1, read)}`;
    else if (read === 0) readAs = 'without a COUNT (no end)';
    else if (read < 0) readAs = 'as no occurrence at all';
    else readAs = `as COUNT=${read}`;
    odd.push({ part: name, value, readAs });
  }
  return odd;
}

/** The RRULE values of each VEVENT in iCalendar text, with the event's SUMMARY (or UID), read from the raw lines. */
export function rulesOfEvents(text: string): { title: string; rules: string[] }[] {
  const events: { title: string; rules: string[] }[] = [];
  let current: { summary?: string; uid?: string; rules: string[] } | undefined;
  for (const line of text.replace(/\r?\n[ \t]/g, '').split(/\r?\n/)) {
    const upper = line.toUpperCase();
    if (upper === 'BEGIN:VEVENT') current = { rules: [] };
    else if (upper === 'END:VEVENT' && current) {
      if (current.rules.length > 0)
        events.push({ title: current.summary ?? current.uid ?? '(no title)', rules: current.rules });
      current = undefined;
    } else if (current) {
      const value = line.slice(line.indexOf(':') + 1);
      if (/^RRULE[;:]/i.test(line)) current.rules.push(value);
      else if (/^SUMMARY[;:]/i.test(line)) current.summary ??= value.replace(/\\([,;\\])/g, '$1');
      else if (/^UID[;:]/i.test(line)) current.uid ??= value;
    }
  }
  return events;
}
