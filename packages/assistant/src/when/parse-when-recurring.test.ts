import { describe, expect, test } from 'bun:test';
import { parseWhen } from './parse-when.ts';

// Monday 2026-11-23 15:30 in Seoul.
const now = Date.parse('2026-11-23T15:30:00+09:00');
const timeZone = 'Asia/Seoul';
const weekdays = 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR';

const rules: [string, string, string][] = [
  ['every weekday at 9', `${weekdays};BYHOUR=9;BYMINUTE=0;BYSECOND=0`, '20261124T090000'],
  ['every monday at 10am', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=10;BYMINUTE=0;BYSECOND=0', '20261130T100000'],
  [
    'every monday and thursday at 7:30pm',
    'FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=19;BYMINUTE=30;BYSECOND=0',
    '20261123T193000',
  ],
  ['every day at 8', 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0', '20261124T080000'],
  ['daily at 17:00', 'FREQ=DAILY;BYHOUR=17;BYMINUTE=0;BYSECOND=0', '20261123T170000'],
  ['every weekend at noon', 'FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=12;BYMINUTE=0;BYSECOND=0', '20261128T120000'],
  ['every month on the 1st at 9am', 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0;BYSECOND=0', '20261201T090000'],
  ['every 2 hours', 'FREQ=HOURLY;INTERVAL=2', '20261123T173000'],
  ['every 15 minutes', 'FREQ=MINUTELY;INTERVAL=15', '20261123T154500'],
  ['매일 아침 8시', 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0', '20261124T080000'],
  ['평일마다 9시', `${weekdays};BYHOUR=9;BYMINUTE=0;BYSECOND=0`, '20261124T090000'],
  ['평일 오전 9시 반', `${weekdays};BYHOUR=9;BYMINUTE=30;BYSECOND=0`, '20261124T093000'],
  ['매주 월요일 오전 10시', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=10;BYMINUTE=0;BYSECOND=0', '20261130T100000'],
  ['매주 월, 수, 금 저녁 7시', 'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=19;BYMINUTE=0;BYSECOND=0', '20261123T190000'],
  ['화요일마다 오후 2시', 'FREQ=WEEKLY;BYDAY=TU;BYHOUR=14;BYMINUTE=0;BYSECOND=0', '20261124T140000'],
  ['주말마다 10시', 'FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=10;BYMINUTE=0;BYSECOND=0', '20261128T100000'],
  ['매월 1일 9시', 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0;BYSECOND=0', '20261201T090000'],
  ['30분마다', 'FREQ=MINUTELY;INTERVAL=30', '20261123T160000'],
  ['2시간마다', 'FREQ=HOURLY;INTERVAL=2', '20261123T173000'],
];

describe('parseWhen reads repetitions as RFC 5545 rules in the zone', () => {
  test.each(rules)('%p → %p', async (text, rule, start) => {
    const result = await parseWhen(text, { now, timeZone });
    if (result.kind !== 'recurring') throw new Error(`not recurring: ${JSON.stringify(result)}`);
    expect(result.rrule).toBe(`DTSTART;TZID=Asia/Seoul:${start}\nRRULE:${rule}`);
    expect(result.firstIso.startsWith(`${start.slice(0, 4)}-${start.slice(4, 6)}-${start.slice(6, 8)}`)).toBe(true);
  });
});

const bad: [string, string][] = [
  ['2월 30일', 'E_WHEN_INVALID'],
  ['13월 1일', 'E_WHEN_INVALID'],
  ['11월 31일 오후 3시', 'E_WHEN_INVALID'],
  ['내일 25시', 'E_WHEN_INVALID'],
  ['오후 13시', 'E_WHEN_INVALID'],
  ['내일 3시 75분', 'E_WHEN_INVALID'],
  ['February 30', 'E_WHEN_INVALID'],
  ['april 31 at 9am', 'E_WHEN_INVALID'],
  ['february 29', 'E_WHEN_INVALID'],
  ['2026-02-30', 'E_WHEN_INVALID'],
  ['2026-13-01T09:00:00Z', 'E_WHEN_INVALID'],
  ['2026-12-01T24:30:00Z', 'E_WHEN_INVALID'],
  ['2026-12-01T12:00:00+25:00', 'E_WHEN_INVALID'],
  ['2026-12-01T12:00:00-0960', 'E_WHEN_INVALID'],
  ['every day at 25', 'E_WHEN_INVALID'],
  ['매월 32일 9시', 'E_WHEN_INVALID'],
  ['03/04', 'E_WHEN_AMBIGUOUS'],
  ['tomorrow or friday', 'E_WHEN_AMBIGUOUS'],
  ['', 'E_WHEN_UNREADABLE'],
  ['whenever', 'E_WHEN_UNREADABLE'],
  ['언젠가', 'E_WHEN_UNREADABLE'],
  ['tomorrow at 25', 'E_WHEN_UNREADABLE'],
  ['내일 ٣시', 'E_WHEN_UNREADABLE'],
  ['-1시간 후', 'E_WHEN_UNREADABLE'],
  ['-5 minutes from now', 'E_WHEN_UNREADABLE'],
  ['tomorrow -3pm', 'E_WHEN_UNREADABLE'],
  ['every blue moon', 'E_WHEN_UNREADABLE'],
  ['매번', 'E_WHEN_UNREADABLE'],
  ['tomorrow '.repeat(30), 'E_WHEN_UNREADABLE'],
];

describe('parseWhen refuses what it cannot read with a coded error and a suggestion', () => {
  test.each(bad)('%p → %p', async (text, code) => {
    const failure = await parseWhen(text, { now, timeZone }).then(
      (result) => result,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code });
    expect((failure as { suggestion?: string }).suggestion?.length).toBeGreaterThan(10);
  });

  test('an unknown zone is refused rather than read in the host zone', async () => {
    await expect(parseWhen('내일 3시', { now, timeZone: 'Mars/Olympus' })).rejects.toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
  });

  test('a UTC offset is refused as a zone (Intl takes it, but a DTSTART;TZID=+09:00 rule could not be scheduled)', async () => {
    for (const offset of ['+09:00', '+0900', '-00:30'])
      await expect(parseWhen('every day at 9am', { now, timeZone: offset })).rejects.toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: `'${offset}' is a UTC offset, not a time zone: it keeps no daylight-saving rules.`,
      });
    await expect(parseWhen('tomorrow at 9am', { now, timeZone: '+09' })).rejects.toMatchObject({
      suggestion: expect.stringContaining('Etc/GMT-9 for a fixed +09:00'),
    });
    const fixed = await parseWhen('every day at 9am', { now, timeZone: 'Etc/GMT-9' });
    expect(fixed.kind === 'recurring' && fixed.rrule).toStartWith('DTSTART;TZID=Etc/GMT-9:');
  });

  test('full-width digits, as CJK input methods type them, are read as digits, not dropped for 09:00', async () => {
    for (const [text, iso] of [
      ['내일 ３시', '2026-11-24T15:00:00+09:00'],
      ['tomorrow at ３pm', '2026-11-24T15:00:00+09:00'],
      ['내일 １０：３０', '2026-11-24T10:30:00+09:00'],
      ['２０２６－１２－０１Ｔ０９：００：００＋０９：００', '2026-12-01T09:00:00+09:00'],
    ] as const) {
      const read = await parseWhen(text, { now, timeZone });
      expect(read.kind === 'instant' && read.iso).toBe(iso);
    }
    const every = await parseWhen('매일 아침 ８시', { now, timeZone });
    expect(every.kind === 'recurring' && every.rrule).toContain('BYHOUR=8;');
  });

  test('the host zone does not change the answer', async () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'Pacific/Chatham';
      const result = await parseWhen('tomorrow at 3pm', { now, timeZone });
      expect(result.kind === 'instant' && result.iso).toBe('2026-11-24T15:00:00+09:00');
    } finally {
      process.env.TZ = saved;
    }
  });
});
