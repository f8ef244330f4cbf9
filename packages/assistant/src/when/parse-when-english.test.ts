import { describe, expect, test } from 'bun:test';
import { parseWhen } from './parse-when.ts';

// Friday 2026-03-06 10:00 in New York; clocks go forward on Sunday 2026-03-08 (-05:00 → -04:00).
const now = Date.parse('2026-03-06T10:00:00-05:00');
const timeZone = 'America/New_York';

const phrases: [string, string][] = [
  ['tomorrow at 3pm', '2026-03-07T15:00:00-05:00'],
  ['tomorrow 3pm', '2026-03-07T15:00:00-05:00'],
  ['tomorrow at 3:30 pm', '2026-03-07T15:30:00-05:00'],
  ['tomorrow at 9am', '2026-03-07T09:00:00-05:00'],
  ['tomorrow at 9', '2026-03-07T09:00:00-05:00'],
  ['tomorrow at 3', '2026-03-07T15:00:00-05:00'],
  ['tomorrow at noon', '2026-03-07T12:00:00-05:00'],
  ['tomorrow morning', '2026-03-07T06:00:00-05:00'],
  ['tomorrow evening', '2026-03-07T20:00:00-05:00'],
  ['tomorrow', '2026-03-07T09:00:00-05:00'],
  ['tomorrow at 18:45', '2026-03-07T18:45:00-05:00'],
  ['today at 5pm', '2026-03-06T17:00:00-05:00'],
  ['today at 11:15am', '2026-03-06T11:15:00-05:00'],
  ['tonight', '2026-03-06T22:00:00-05:00'],
  ['tonight at 8', '2026-03-06T20:00:00-05:00'],
  ['this afternoon', '2026-03-06T15:00:00-05:00'],
  ['this evening', '2026-03-06T20:00:00-05:00'],
  ['at 5pm', '2026-03-06T17:00:00-05:00'],
  ['5pm', '2026-03-06T17:00:00-05:00'],
  ['at 9am', '2026-03-07T09:00:00-05:00'],
  ['9:30am', '2026-03-07T09:30:00-05:00'],
  ['at 23:00', '2026-03-06T23:00:00-05:00'],
  ['at noon', '2026-03-06T12:00:00-05:00'],
  ['at midnight', '2026-03-07T00:00:00-05:00'],
  ['noon tomorrow', '2026-03-07T12:00:00-05:00'],
  ['3pm tomorrow', '2026-03-07T15:00:00-05:00'],
  ['in 20 minutes', '2026-03-06T10:20:00-05:00'],
  ['in 5 minutes', '2026-03-06T10:05:00-05:00'],
  ['in 90 minutes', '2026-03-06T11:30:00-05:00'],
  ['in an hour', '2026-03-06T11:00:00-05:00'],
  ['in 1 hour', '2026-03-06T11:00:00-05:00'],
  ['in 3 hours', '2026-03-06T13:00:00-05:00'],
  ['in 2 hours and 30 minutes', '2026-03-06T12:30:00-05:00'],
  ['in 30 seconds', '2026-03-06T10:00:30-05:00'],
  ['in half an hour', '2026-03-06T10:30:00-05:00'],
  ['20 minutes from now', '2026-03-06T10:20:00-05:00'],
  ['2 hours from now', '2026-03-06T12:00:00-05:00'],
  ['in 48 hours', '2026-03-08T11:00:00-04:00'],
  ['in 3 days', '2026-03-09T10:00:00-04:00'],
  ['in 2 days', '2026-03-08T10:00:00-04:00'],
  ['in a week', '2026-03-13T10:00:00-04:00'],
  ['in 2 weeks', '2026-03-20T10:00:00-04:00'],
  ['in a month', '2026-04-06T10:00:00-04:00'],
  ['3 days from now', '2026-03-09T10:00:00-04:00'],
  ['in 3 days at 4pm', '2026-03-09T16:00:00-04:00'],
  ['monday', '2026-03-09T09:00:00-04:00'],
  ['monday at 10am', '2026-03-09T10:00:00-04:00'],
  ['on monday at 10am', '2026-03-09T10:00:00-04:00'],
  ['tuesday 9am', '2026-03-10T09:00:00-04:00'],
  ['wednesday at 2:15pm', '2026-03-11T14:15:00-04:00'],
  ['thursday noon', '2026-03-12T12:00:00-04:00'],
  ['friday at 5pm', '2026-03-06T17:00:00-05:00'],
  ['saturday', '2026-03-07T09:00:00-05:00'],
  ['sunday at 8am', '2026-03-08T08:00:00-04:00'],
  ['sunday at 2:30am', '2026-03-08T03:30:00-04:00'],
  ['next monday', '2026-03-09T09:00:00-04:00'],
  ['next tuesday', '2026-03-10T09:00:00-04:00'],
  ['next tuesday at 9am', '2026-03-10T09:00:00-04:00'],
  ['next friday at 6pm', '2026-03-13T18:00:00-04:00'],
  ['this friday at 6pm', '2026-03-06T18:00:00-05:00'],
  ['this saturday at 11am', '2026-03-07T11:00:00-05:00'],
  ['next week', '2026-03-13T10:00:00-04:00'],
  ['next month', '2026-04-06T10:00:00-04:00'],
  ['march 10', '2026-03-10T09:00:00-04:00'],
  ['march 10 at 2pm', '2026-03-10T14:00:00-04:00'],
  ['March 10th at 2pm', '2026-03-10T14:00:00-04:00'],
  ['10 march', '2026-03-10T09:00:00-04:00'],
  ['the 10th of march at 8am', '2026-03-10T08:00:00-04:00'],
  ['mar 1', '2027-03-01T09:00:00-05:00'],
  ['april 1', '2026-04-01T09:00:00-04:00'],
  ['april 1 at noon', '2026-04-01T12:00:00-04:00'],
  ['may 5th 2026', '2026-05-05T09:00:00-04:00'],
  ['june 30 at 11:59pm', '2026-06-30T23:59:00-04:00'],
  ['july 4th at 9pm', '2026-07-04T21:00:00-04:00'],
  ['aug 15', '2026-08-15T09:00:00-04:00'],
  ['september 1 at 8:00', '2026-09-01T08:00:00-04:00'],
  ['oct 31 at 7pm', '2026-10-31T19:00:00-04:00'],
  ['november 1 at 1:30am', '2026-11-01T01:30:00-04:00'],
  ['november 2 at 9am', '2026-11-02T09:00:00-05:00'],
  ['dec 25', '2026-12-25T09:00:00-05:00'],
  ['december 31 at 11pm', '2026-12-31T23:00:00-05:00'],
  ['january 1 2027', '2027-01-01T09:00:00-05:00'],
  ['jan 15 2027 at 10am', '2027-01-15T10:00:00-05:00'],
  ['feb 28', '2027-02-28T09:00:00-05:00'],
  ['february 28 at 8pm', '2027-02-28T20:00:00-05:00'],
  ['february 29 2028', '2028-02-29T09:00:00-05:00'],
  ['march 8 at 2:30am', '2026-03-08T03:30:00-04:00'],
  ['march 8 at 3am', '2026-03-08T03:00:00-04:00'],
  ['march 8 at 1am', '2026-03-08T01:00:00-05:00'],
  ['friday march 13 at 9am', '2026-03-13T09:00:00-04:00'],
  ['12/25', '2026-12-25T09:00:00-05:00'],
  ['12/25/2026 at 6pm', '2026-12-25T18:00:00-05:00'],
  ['3/20/2026', '2026-03-20T09:00:00-04:00'],
  ['2026-03-10T09:00:00-04:00', '2026-03-10T09:00:00-04:00'],
  ['2026-03-10T09:00:00+09:00', '2026-03-09T20:00:00-04:00'],
  ['2026-03-10T13:00:00Z', '2026-03-10T09:00:00-04:00'],
  ['2026-03-10T09:00', '2026-03-10T09:00:00-04:00'],
  ['2026-03-10 09:00', '2026-03-10T09:00:00-04:00'],
  ['2026-03-10', '2026-03-10T09:00:00-04:00'],
  ['2026-03-10T09:00:00.250-04:00', '2026-03-10T09:00:00-04:00'],
  ['2026-11-01T01:30:00', '2026-11-01T01:30:00-04:00'],
  ['2026-03-08T02:30:00', '2026-03-08T03:30:00-04:00'],
  ['now', '2026-03-06T10:00:00-05:00'],
  ['at 3pm EST', '2026-03-06T15:00:00-05:00'],
  // chrono takes a negative offset with a colon into its match without reading it (the time was read in the zone).
  ['tomorrow at 3pm -08:00', '2026-03-07T18:00:00-05:00'],
  ['tomorrow at 3pm -0800', '2026-03-07T18:00:00-05:00'],
  ['tomorrow at 3pm UTC', '2026-03-07T10:00:00-05:00'],
  ['tomorrow at 15:00 +09:00', '2026-03-07T01:00:00-05:00'],
];

describe('parseWhen reads English', () => {
  test('at least 100 phrases', () => expect(phrases.length).toBeGreaterThanOrEqual(100));
  test.each(phrases)('%p → %p', async (text, iso) => {
    const result = await parseWhen(text, { now, timeZone });
    expect(result.kind).toBe('instant');
    expect(result.kind === 'instant' && result.iso).toBe(iso);
    expect(result.timeZone).toBe(timeZone);
  });
});

describe('parseWhen says when a time falls in a DST change', () => {
  test('a skipped time moves forward and a repeated one takes the first, each with a note naming both', async () => {
    const read = async (text: string, at: string, zone = timeZone) => {
      const result = await parseWhen(text, { now: Date.parse(at), timeZone: zone });
      return [result.kind === 'instant' ? result.iso : result.firstIso, result.notes];
    };
    const skipped =
      "'02:30' does not exist on 2026-03-08 in America/New_York (the clocks jump forward): it is read as 2026-03-08T03:30:00-04:00.";
    expect(await read('sunday at 2:30am', '2026-03-06T10:00:00-05:00')).toEqual([
      '2026-03-08T03:30:00-04:00',
      [skipped],
    ]);
    expect(await read('2026-03-08T02:30', '2026-03-06T10:00:00-05:00')).toEqual([
      '2026-03-08T03:30:00-04:00',
      [skipped],
    ]);
    expect(await read('every day at 2:30am', '2026-03-07T10:00:00-05:00')).toEqual([
      '2026-03-08T03:30:00-04:00',
      [skipped],
    ]);
    expect(await read('tomorrow at 1:30am', '2026-10-31T10:00:00-04:00')).toEqual([
      '2026-11-01T01:30:00-04:00',
      [
        "'01:30' happens twice on 2026-11-01 in America/New_York (the clocks go back): the first, 2026-11-01T01:30:00-04:00, is taken; the second is 2026-11-01T01:30:00-05:00.",
      ],
    ]);
    // Samoa skipped 2011-12-30 whole; Korea kept DST in 1987.
    expect((await read('2011-12-30T09:00', '2011-12-29T10:00:00-10:00', 'Pacific/Apia'))[0]).toBe(
      '2011-12-31T09:00:00+14:00',
    );
    expect(await read('내일 새벽 2시 30분', '1987-05-09T12:00:00+09:00', 'Asia/Seoul')).toEqual([
      '1987-05-10T03:30:00+10:00',
      [
        "'02:30' does not exist on 1987-05-10 in Asia/Seoul (the clocks jump forward): it is read as 1987-05-10T03:30:00+10:00.",
      ],
    ]);
    expect((await read('sunday at 1:30am', '2026-03-06T10:00:00-05:00'))[1]).toEqual([]);
  });
});

describe('parseWhen reads the year written', () => {
  test('years 0000–0099 are those years, not 1900–1999 (leap days and weekdays of that year)', async () => {
    const read = async (text: string, zone = 'UTC') => {
      const result = await parseWhen(text, { now, timeZone: zone });
      return result.kind === 'instant' ? [result.iso, result.weekday] : [];
    };
    expect(await read('0000-01-01T00:00:00Z')).toEqual(['0000-01-01T00:00:00+00:00', 'Saturday']);
    expect(await read('0099-05-01')).toEqual(['0099-05-01T09:00:00+00:00', 'Friday']);
    // 1900 had no 29 February; the year 0 (1 BC) had.
    expect(await read('0000-02-29T12:00')).toEqual(['0000-02-29T12:00:00+00:00', 'Tuesday']);
    expect(await read('0050년 3월 1일 오전 9시', 'Asia/Seoul')).toEqual(['0050-03-01T09:00:00+08:28', 'Tuesday']);
    // Local mean time (-4:56:02) is kept to the second: 09:00 stays 09:00.
    expect(await read('0099-05-01T09:00', timeZone)).toEqual(['0099-05-01T09:00:00-04:56', 'Friday']);
  });

  test('outside the years 0000–9999 of the zone is E_WHEN_INVALID saying the limit', async () => {
    for (const [text, zone, year] of [
      ['in 99999999999 minutes', timeZone, '192158'],
      ['in 9000 years', 'UTC', '11026'],
      ['0000-01-01T00:00:00Z', timeZone, '-1'],
    ] as const) {
      const error = await parseWhen(text, { now, timeZone: zone }).then(
        () => undefined,
        (caught: { code: string; message: string; suggestion: string }) => caught,
      );
      expect(error?.code).toBe('E_WHEN_INVALID');
      expect(error?.message).toBe(
        `'${text}' is in the year ${year} in ${zone}; dates run from 0000-01-01 to 9999-12-31.`,
      );
      expect(error?.suggestion).toMatch(/^Give a date /);
    }
    const last = await parseWhen('9999-12-31T23:59:59Z', { now, timeZone: 'UTC' });
    expect(last.kind === 'instant' && last.iso).toBe('9999-12-31T23:59:59+00:00');
  });
});
