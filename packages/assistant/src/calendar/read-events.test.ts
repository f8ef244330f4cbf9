import { describe, expect, test } from 'bun:test';
import { MAX_LISTING_STEPS, readEvents } from './read-events.ts';
import { vtimezoneFor } from './vtimezone.ts';

const wrap = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', ...lines, 'END:VCALENDAR'].join('\r\n');
const range = (from: string, to: string, timeZone = 'Asia/Seoul') => ({
  fromMs: Date.parse(from),
  toMs: Date.parse(to),
  timeZone,
  calendar: 'test',
});

describe('readEvents', () => {
  test('a TZID without VTIMEZONE is read as the IANA zone; a vendor-prefixed TZID too', async () => {
    const text = wrap(
      'BEGIN:VEVENT',
      'UID:a',
      'DTSTART;TZID=Europe/Berlin:20260329T013000',
      'DTEND;TZID=/mozilla.org/20050126_1/Europe/Berlin:20260329T033000',
      'SUMMARY:über Nacht',
      'END:VEVENT',
    );
    const { occurrences } = await readEvents(
      text,
      't.ics',
      range('2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z', 'UTC'),
    );
    // 01:30 CET is 00:30Z; 03:30 CEST (after the 02:00 jump) is 01:30Z.
    expect(occurrences.map((o) => [o.start, o.end, o.title])).toEqual([
      ['2026-03-29T00:30:00+00:00', '2026-03-29T01:30:00+00:00', 'über Nacht'],
    ]);
  });

  test('a TZID that is no IANA name is read through the VTIMEZONE of the same calendar', async () => {
    const text = wrap(
      'BEGIN:VTIMEZONE',
      'TZID:Korea Standard Time',
      'BEGIN:STANDARD',
      'DTSTART:16010101T000000',
      'TZOFFSETFROM:+0900',
      'TZOFFSETTO:+0900',
      'END:STANDARD',
      'END:VTIMEZONE',
      'BEGIN:VEVENT',
      'UID:b',
      'DTSTART;TZID=Korea Standard Time:20261124T150000',
      'DTEND;TZID=Korea Standard Time:20261124T160000',
      'SUMMARY:점심',
      'END:VEVENT',
    );
    const { occurrences } = await readEvents(
      text,
      't.ics',
      range('2026-11-24T00:00:00Z', '2026-11-25T00:00:00Z', 'UTC'),
    );
    expect(occurrences[0]?.start).toBe('2026-11-24T06:00:00+00:00');
  });

  test('floating times are read in the answer zone; all-day events keep their dates; an unknown zone is a note', async () => {
    const text = wrap(
      'BEGIN:VEVENT',
      'UID:c',
      'DTSTART:20261124T090000',
      'DTEND:20261124T100000',
      'SUMMARY:floating',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:d',
      'DTSTART;VALUE=DATE:20261124',
      'DTEND;VALUE=DATE:20261125',
      'SUMMARY:생일',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:e',
      'DTSTART;TZID=Nowhere Time:20261124T120000',
      'SUMMARY:odd',
      'END:VEVENT',
    );
    const { occurrences, notes } = await readEvents(
      text,
      't.ics',
      range('2026-11-23T15:00:00Z', '2026-11-24T15:00:00Z'),
    );
    expect(occurrences.map((o) => [o.title, o.start, o.end, o.allDay])).toEqual([
      ['생일', '2026-11-24', '2026-11-25', true],
      ['floating', '2026-11-24T09:00:00+09:00', '2026-11-24T10:00:00+09:00', false],
      ['odd', '2026-11-24T12:00:00+09:00', '2026-11-24T12:00:00+09:00', false],
    ]);
    expect(notes[0]).toContain("'Nowhere Time'");
  });

  test('a daily event of ten years is expanded only into the range', async () => {
    const text = wrap(
      'BEGIN:VEVENT',
      'UID:f',
      'DTSTART:20160101T080000Z',
      'RRULE:FREQ=DAILY',
      'SUMMARY:daily',
      'END:VEVENT',
    );
    const { occurrences } = await readEvents(
      text,
      't.ics',
      range('2026-11-24T00:00:00Z', '2026-11-27T00:00:00Z', 'UTC'),
    );
    expect(occurrences.map((o) => o.start)).toEqual([
      '2026-11-24T08:00:00+00:00',
      '2026-11-25T08:00:00+00:00',
      '2026-11-26T08:00:00+00:00',
    ]);
  });

  test('an hourly rule begun years ago is listed in the range (not cut by the step limit), with EXDATE and a moved occurrence', async () => {
    const text = wrap(
      'BEGIN:VEVENT',
      'UID:h',
      'DTSTART:20180101T000000Z',
      'DTEND:20180101T001000Z',
      'RRULE:FREQ=HOURLY',
      'EXDATE:20261124T020000Z',
      'SUMMARY:hourly',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:h',
      'RECURRENCE-ID:20261120T100000Z',
      'DTSTART:20261124T023000Z',
      'DTEND:20261124T024000Z',
      'SUMMARY:moved here from days before',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:u',
      'DTSTART:20180101T000000Z',
      'RRULE:FREQ=MINUTELY;UNTIL=20200101T000000Z',
      'SUMMARY:ended long ago',
      'END:VEVENT',
    );
    const { occurrences, notes } = await readEvents(
      text,
      't.ics',
      range('2026-11-24T00:00:00Z', '2026-11-24T05:00:00Z', 'UTC'),
    );
    expect(occurrences.map((o) => [o.start.slice(11, 16), o.title])).toEqual([
      ['00:00', 'hourly'],
      ['01:00', 'hourly'],
      ['02:30', 'moved here from days before'],
      ['03:00', 'hourly'],
      ['04:00', 'hourly'],
    ]);
    expect(notes).toEqual([]);
  });

  test('a secondly and a minutely rule begun years ago are listed in the range as stepping from the start would', async () => {
    const secondly = await readEvents(
      wrap(
        'BEGIN:VEVENT',
        'UID:s',
        'DTSTART:20200101T000007Z',
        'RRULE:FREQ=SECONDLY;INTERVAL=30',
        'SUMMARY:s',
        'END:VEVENT',
      ),
      't.ics',
      range('2026-11-24T00:00:00Z', '2026-11-24T00:05:00Z', 'UTC'),
    );
    expect(secondly.occurrences.map((o) => o.start.slice(11, 19))).toEqual(
      Array.from({ length: 10 }, (_, i) => `00:0${Math.floor(i / 2)}:${i % 2 === 0 ? '07' : '37'}`),
    );
    expect(secondly.notes).toEqual([]);
    // Across New York's DST change, in its wall-clock time: a jump lands where stepping from DTSTART does (the
    // same rule with a COUNT cannot jump, and 13 days of 7-minute steps are within the limit).
    const minutely = (rule: string) =>
      wrap(
        'BEGIN:VEVENT',
        'UID:m',
        'DTSTART;TZID=America/New_York:20261020T083000',
        'DTEND;TZID=America/New_York:20261020T083500',
        `RRULE:${rule}`,
        'SUMMARY:m',
        'END:VEVENT',
      );
    const window = range('2026-11-01T04:00:00Z', '2026-11-01T08:00:00Z', 'America/New_York');
    const jumped = await readEvents(minutely('FREQ=MINUTELY;INTERVAL=7'), 't.ics', window);
    const stepped = await readEvents(minutely('FREQ=MINUTELY;INTERVAL=7;COUNT=1000000'), 't.ics', window);
    // 00:00 EDT to 03:00 EST is three hours of wall-clock time (01:00-02:00 happens twice, stepped once): 26 steps.
    expect(jumped.occurrences).toHaveLength(26);
    expect(jumped.occurrences).toEqual(stepped.occurrences);
    expect(jumped.notes).toEqual([]);
  });

  test('a rule that cannot be jumped and reaches the step limit before the range says its occurrences there are missing', async () => {
    const text = wrap(
      'BEGIN:VEVENT',
      'UID:b',
      'DTSTART:20190101T000000Z',
      'RRULE:FREQ=MINUTELY;BYSECOND=0',
      'SUMMARY:every minute',
      'END:VEVENT',
    );
    const { occurrences, notes } = await readEvents(
      text,
      't.ics',
      range('2026-11-24T00:00:00Z', '2026-11-25T00:00:00Z', 'UTC'),
    );
    expect(occurrences).toEqual([]);
    expect(notes).toEqual([
      "'every minute' repeats too often to step from its start (2019-01-01) to the listed range in 20000 steps: its occurrences in the range are missing from this answer.",
    ]);
  });

  test('many events repeating every second share one step budget: the rest is a note, one-off events stay', async () => {
    const spam = Array.from({ length: 8 }, (_, i) => [
      'BEGIN:VEVENT',
      `UID:spam-${i}`,
      'DTSTART:20261124T000000Z',
      'RRULE:FREQ=SECONDLY',
      `SUMMARY:spam ${i}`,
      'END:VEVENT',
    ]).flat();
    const once = ['BEGIN:VEVENT', 'UID:once', 'DTSTART:20261124T120000Z', 'SUMMARY:dentist', 'END:VEVENT'];
    const { occurrences, notes } = await readEvents(
      wrap(...spam, ...once),
      't.ics',
      range('2026-11-24T00:00:00Z', '2026-11-26T00:00:00Z', 'UTC'),
    );
    expect(occurrences.length).toBeLessThanOrEqual(MAX_LISTING_STEPS + 1);
    expect(occurrences.some((o) => o.title === 'dentist')).toBe(true);
    expect(occurrences.some((o) => o.title === 'spam 7')).toBe(false);
    expect(notes).toContain(
      `The repeating events took more than ${MAX_LISTING_STEPS} steps to list together: 'spam 5' and those after it are missing from this answer, in part or in full; ask for fewer days or one calendar.`,
    );
    // One budget for every text of a listing (a server's events are one text each): what one spends, the next lacks.
    const budget = { steps: 30 };
    const listing = { ...range('2026-11-24T00:00:00Z', '2026-11-26T00:00:00Z', 'UTC'), budget };
    const one = wrap(...spam.slice(0, 6));
    expect((await readEvents(one, 'a.ics', listing)).occurrences.length).toBe(30);
    const next = await readEvents(one, 'b.ics', listing);
    expect(next.occurrences).toEqual([]);
    expect(next.notes[0]).toStartWith(
      `The repeating events took more than ${MAX_LISTING_STEPS} steps to list together: 'spam 0'`,
    );
  });

  test('INTERVAL and COUNT that RFC 5545 does not allow are read as ical.js reads them, with a note', async () => {
    const event = (uid: string, rule: string) => [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTART:20261124T090000Z',
      `RRULE:${rule}`,
      `SUMMARY:${uid}`,
      'END:VEVENT',
    ];
    const text = wrap(
      ...event('zero', 'FREQ=DAILY;INTERVAL=0'),
      ...event('negative', 'FREQ=DAILY;INTERVAL=-2;COUNT=2'),
      ...event('no-end', 'FREQ=DAILY;COUNT=0'),
      ...event('none', 'FREQ=DAILY;COUNT=-1'),
    );
    const { occurrences, notes } = await readEvents(
      text,
      't.ics',
      range('2026-11-24T00:00:00Z', '2026-11-27T00:00:00Z', 'UTC'),
    );
    const days = (title: string) => occurrences.filter((o) => o.title === title).map((o) => o.start.slice(0, 10));
    expect(days('zero')).toEqual(['2026-11-24', '2026-11-25', '2026-11-26']);
    expect(days('negative')).toEqual(['2026-11-24', '2026-11-25']);
    expect(days('no-end')).toEqual(['2026-11-24', '2026-11-25', '2026-11-26']);
    expect(days('none')).toEqual([]);
    expect(notes).toEqual([
      "'zero' repeats with INTERVAL=0, which RFC 5545 does not allow (a whole number from 1); it was read as ical.js reads it: as INTERVAL=1.",
      "'negative' repeats with INTERVAL=-2, which RFC 5545 does not allow (a whole number from 1); it was read as ical.js reads it: as INTERVAL=1.",
      "'no-end' repeats with COUNT=0, which RFC 5545 does not allow (a whole number from 1); it was read as ical.js reads it: without a COUNT (no end).",
      "'none' repeats with COUNT=-1, which RFC 5545 does not allow (a whole number from 1); it was read as ical.js reads it: as no occurrence at all.",
    ]);
  });
});

describe('vtimezoneFor', () => {
  test('a zone with DST gets its changes around the year; one without gets one fixed observance', () => {
    const newYork = vtimezoneFor('America/New_York', Date.parse('2026-06-01T00:00:00Z'));
    expect(newYork).toContain('BEGIN:DAYLIGHT\r\nDTSTART:20260308T020000\r\nTZOFFSETFROM:-0500\r\nTZOFFSETTO:-0400');
    expect(newYork).toContain('BEGIN:STANDARD\r\nDTSTART:20261101T020000\r\nTZOFFSETFROM:-0400\r\nTZOFFSETTO:-0500');
    expect(vtimezoneFor('Asia/Seoul', Date.parse('2026-06-01T00:00:00Z'))).toContain(
      'TZOFFSETFROM:+0900\r\nTZOFFSETTO:+0900',
    );
  });
  test('an event without DTSTART (a bare RRULE too) is left out with a note, not read as starting now', async () => {
    const text = wrap('BEGIN:VEVENT', 'UID:r', 'RRULE:FREQ=DAILY', 'SUMMARY:매일', 'END:VEVENT');
    const now = Date.now();
    const read = await readEvents(text, 't.ics', {
      fromMs: now - 86_400_000,
      toMs: now + 7 * 86_400_000,
      timeZone: 'UTC',
      calendar: 'test',
    });
    expect(read.occurrences).toEqual([]);
    expect(read.notes).toEqual(["'매일' has no start time (DTSTART) and was left out."]);
  });
});

describe('readEvents and years 0-99', () => {
  test('an event of the year 50 is of the year 50, not 1950', async () => {
    const text = wrap(
      'BEGIN:VEVENT',
      'UID:old',
      'DTSTART:00500601T120000Z',
      'DTEND:00500601T130000Z',
      'SUMMARY:old',
      'END:VEVENT',
    );
    const from = Date.UTC(2050, 4, 1) - 2000 * 365.2425 * 86_400_000;
    const { occurrences } = await readEvents(text, 'old.ics', {
      fromMs: from,
      toMs: from + 90 * 86_400_000,
      timeZone: 'UTC',
      calendar: 'test',
    });
    expect(occurrences.map((o) => [o.start, o.title])).toEqual([['0050-06-01T12:00:00+00:00', 'old']]);
  });
});
