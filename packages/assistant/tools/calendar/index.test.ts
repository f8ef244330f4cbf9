import { describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAvailability, type JsonObject } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { buildEventCalendar } from '../../src/calendar/build-event.ts';
import { assistantBundleDir } from '../../src/index.ts';
import { handlers as contacts } from '../contacts/index.ts';
import { handlers } from './index.ts';

// biome-ignore lint/suspicious/noExplicitAny: handlers answer JSON; tests read it loosely.
type Loose = any;

function fileContext(config: JsonObject) {
  const bundle = mkdtempSync(join(tmpdir(), 'calendar-file-'));
  return {
    bundle,
    ctx: createTestToolContext({ workdir: join(bundle, '.goondan', 'workspaces', 'a', 'default'), config }),
  };
}

async function failure(promise: Promise<unknown>): Promise<Loose> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('calendar with a local ICS file', () => {
  test('create, list and delete work on the file, which stays valid iCalendar with one VTIMEZONE per zone', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'calendar.ics', timeZone: 'Asia/Seoul' });
    const first: Loose = await handlers.create_event(ctx, {
      title: '치과 예약',
      start_date: '2027-01-05T10:00:00+09:00',
      location: '강남역',
    });
    const second: Loose = await handlers.create_event(ctx, { title: '설날', start_date: '2027-02-07', all_day: true });
    expect(first.created).toMatchObject({
      start: '2027-01-05T10:00:00+09:00',
      end: '2027-01-05T11:00:00+09:00',
      calendar: 'calendar',
    });
    expect(second.created).toMatchObject({ start: '2027-02-07', end: '2027-02-08', allDay: true });
    const text = readFileSync(join(bundle, 'calendar.ics'), 'utf8');
    expect(text.match(/BEGIN:VTIMEZONE/g)?.length).toBe(1);
    expect(text.match(/BEGIN:VEVENT/g)?.length).toBe(2);

    // A long Korean title with emoji is folded into 75-octet lines in the file and comes back whole.
    const long = `${'한국어 제목 🎉 '.repeat(30)}끝`;
    const third: Loose = await handlers.create_event(ctx, { title: long, start_date: '2027-03-01T09:00:00+09:00' });
    expect(
      readFileSync(join(bundle, 'calendar.ics'), 'utf8')
        .split('\r\n')
        .every((line) => Buffer.byteLength(line) <= 75),
    ).toBe(true);
    expect(((await handlers.list_events(ctx, { from: '2027-03-01', days_ahead: 0 })) as Loose).events[0].title).toBe(
      long,
    );
    await handlers.delete_event(ctx, { event_id: third.created.id });
    const listed: Loose = await handlers.list_events(ctx, { from: '2027-01-01', days_ahead: 60 });
    expect(listed.events.map((event: Loose) => [event.title, event.start])).toEqual([
      ['치과 예약', '2027-01-05T10:00:00+09:00'],
      ['설날', '2027-02-07'],
    ]);
    await handlers.delete_event(ctx, { event_id: first.created.id });
    expect(
      ((await handlers.list_events(ctx, { from: '2027-01-01', days_ahead: 60 })) as Loose).events.map(
        (e: Loose) => e.title,
      ),
    ).toEqual(['설날']);
  });

  test('no backend is E_CALENDAR_NOT_CONFIGURED; a broken file is E_CALENDAR_DATA_INVALID; bad input is refused', async () => {
    expect(await failure(handlers.list_events(fileContext({}).ctx, {}))).toMatchObject({
      code: 'E_CALENDAR_NOT_CONFIGURED',
    });
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'broken.ics' });
    writeFileSync(join(bundle, 'broken.ics'), 'this is not a calendar');
    expect(await failure(handlers.list_events(ctx, {}))).toMatchObject({ code: 'E_CALENDAR_DATA_INVALID' });
    const fine = fileContext({ backend: 'file', file: 'c.ics' }).ctx;
    expect(
      await failure(
        handlers.create_event(fine, {
          title: 'x',
          start_date: '2027-01-05T10:00:00Z',
          end_date: '2027-01-05T09:00:00Z',
        }),
      ),
    ).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(await failure(handlers.list_events(fine, { days_ahead: 9999 }))).toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
    expect(await failure(handlers.list_events(fine, { timeZone: 'Mars/Olympus' }))).toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
  });

  test('an event before the year 1000 is refused, so the calendar it would go into stays readable', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'c.ics', timeZone: 'Asia/Seoul' });
    await handlers.create_event(ctx, { title: 'kept', start_date: '2027-01-05T10:00:00+09:00' });
    const before = readFileSync(join(bundle, 'c.ics'), 'utf8');
    for (const start_date of ['0001-01-01', '0999-06-01T12:00:00Z'])
      expect(await failure(handlers.create_event(ctx, { title: 'ancient', start_date }))).toMatchObject({
        code: 'E_WHEN_INVALID',
        message: expect.stringContaining('four-digit year, from 1000'),
      });
    expect(readFileSync(join(bundle, 'c.ics'), 'utf8')).toBe(before);
    const listed: Loose = await handlers.list_events(ctx, { from: '2027-01-05', days_ahead: 0 });
    expect(listed.events.map((event: Loose) => event.title)).toEqual(['kept']);
    expect(
      (await handlers.create_event(ctx, { title: 'old', start_date: '1000-01-01T12:00:00Z' })) as Loose,
    ).toMatchObject({
      created: { title: 'old' },
    });
    expect(((await handlers.list_events(ctx, { from: '1000-01-01', days_ahead: 0 })) as Loose).count).toBe(1);
  });

  test('an all-day repeating event has a rule without a time of day (RFC 5545), and repeats by days at least', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'c.ics', timeZone: 'Asia/Seoul' });
    const made: Loose = await handlers.create_event(ctx, { title: 'bins', start_date: 'every monday', all_day: true });
    expect(made.created.repeats).toBe('every Mon (Asia/Seoul)');
    expect(made.notes).toBeUndefined();
    expect(readFileSync(join(bundle, 'c.ics'), 'utf8')).toContain('RRULE:FREQ=WEEKLY;BYDAY=MO\r\n');
    expect(
      await failure(handlers.create_event(ctx, { title: 'x', start_date: 'every 2 hours', all_day: true })),
    ).toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
      message: expect.stringContaining('An all-day event cannot repeat every 2 hours'),
    });
  });

  test('line breaks and control characters in the text never break out of their property', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'c.ics', timeZone: 'UTC' });
    await handlers.create_event(ctx, {
      title: 'Lunch\r\nATTENDEE:mailto:someone@example.org\rEND:VEVENT\u0000',
      location: 'Room\r1',
      notes: 'first line\r\nsecond\rthird\u0007',
      start_date: '2027-01-05T10:00:00Z',
    });
    const text = readFileSync(join(bundle, 'c.ics'), 'utf8');
    // Only CRLF ends a line; no CR, NUL or BEL of the input is in the file; no property came out of the title.
    for (const character of ['\r', '\n', '\u0000', '\u0007'])
      expect(text.replaceAll('\r\n', '')).not.toContain(character);
    const lines = text.split('\r\n');
    expect(lines.filter((line) => line.startsWith('ATTENDEE'))).toEqual([]);
    expect(lines.filter((line) => line === 'END:VEVENT')).toHaveLength(1);
    const [event]: Loose[] = ((await handlers.list_events(ctx, { from: '2027-01-05', days_ahead: 0 })) as Loose).events;
    expect(event).toMatchObject({
      title: 'Lunch ATTENDEE:mailto:someone@example.org END:VEVENT',
      location: 'Room 1',
      notes: 'first line\nsecond\nthird',
    });
  });

  test('an event whose time cannot be read is E_CALENDAR_DATA_INVALID naming it, not an uncoded failure', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'c.ics', timeZone: 'UTC' });
    writeFileSync(
      join(bundle, 'c.ics'),
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:bad\r\nDTSTART:2027-13-45\r\nSUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
    );
    const error = await failure(handlers.list_events(ctx, {}));
    expect(error).toMatchObject({ code: 'E_CALENDAR_DATA_INVALID' });
    expect(error.message).toContain('c.ics');
  });

  test('a repetition with INTERVAL=0 or a negative COUNT is refused, never written as every day or forever', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'calendar.ics', timeZone: 'Asia/Seoul' });
    for (const start_date of [
      'RRULE:FREQ=DAILY;INTERVAL=0',
      'FREQ=WEEKLY;BYDAY=MO;COUNT=-1',
      'DTSTART:20270101T090000 RRULE:FREQ=DAILY;INTERVAL=x',
    ]) {
      const error = await failure(handlers.create_event(ctx, { title: 'bad rule', start_date }));
      expect(error).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
      expect(error.suggestion).toContain('every monday at 10am');
    }
    expect(
      (await failure(handlers.create_event(ctx, { title: 'x', start_date: 'RRULE:FREQ=DAILY;INTERVAL=0' }))).message,
    ).toContain('INTERVAL=0 is no repetition');
    expect(existsSync(join(bundle, 'calendar.ics'))).toBe(false);
    // The writer refuses such a rule whatever asks for it (ical.js would drop INTERVAL=0 and write every day).
    const event = { uid: 'u', title: 't', startMs: 0, endMs: 3_600_000, allDay: false, timeZone: 'UTC', nowMs: 0 };
    for (const rrule of ['FREQ=DAILY;INTERVAL=0', 'FREQ=DAILY;COUNT=0', 'FREQ=HOURLY;INTERVAL=-3'])
      expect(await failure(buildEventCalendar({ ...event, rrule }))).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(await buildEventCalendar({ ...event, rrule: 'FREQ=DAILY;INTERVAL=2;COUNT=3' })).toContain(
      'RRULE:FREQ=DAILY;COUNT=3;INTERVAL=2',
    );
  });

  test('an event in the file with INTERVAL=0 is listed as ical.js reads it (every day), with a note', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'calendar.ics', timeZone: 'UTC' });
    writeFileSync(
      join(bundle, 'calendar.ics'),
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:z\r\nDTSTART:20270101T090000Z\r\nRRULE:FREQ=DAILY;INTERVAL=0\r\nSUMMARY:zero\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
    );
    const listed: Loose = await handlers.list_events(ctx, { from: '2027-01-01', days_ahead: 2 });
    expect(listed.events.map((event: Loose) => event.start)).toEqual([
      '2027-01-01T09:00:00+00:00',
      '2027-01-02T09:00:00+00:00',
      '2027-01-03T09:00:00+00:00',
    ]);
    expect(listed.notes).toEqual([
      "'zero' repeats with INTERVAL=0, which RFC 5545 does not allow (a whole number from 1); it was read as ical.js reads it: as INTERVAL=1.",
    ]);
  });

  test('an oversized file is E_DAV_RESPONSE_TOO_LARGE before it is read', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'big.ics', maxResponseBytes: 1000 });
    writeFileSync(join(bundle, 'big.ics'), `BEGIN:VCALENDAR\r\n${'X-PAD:0123456789\r\n'.repeat(200)}END:VCALENDAR\r\n`);
    expect(await failure(handlers.list_events(ctx, {}))).toMatchObject({ code: 'E_DAV_RESPONSE_TOO_LARGE' });
  });
});

describe('contacts with a local vCard file', () => {
  test('search and detail read the .vcf file; several matches are listed for the model to choose', async () => {
    const { bundle, ctx } = fileContext({ backend: 'file', file: 'people.vcf' });
    writeFileSync(
      join(bundle, 'people.vcf'),
      [
        'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:이서연\r\nTEL:010-2222-3333\r\nEND:VCARD',
        'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:이서준\r\nEMAIL:seojun@example.org\r\nEND:VCARD',
        '',
      ].join('\r\n'),
    );
    expect(((await contacts.search(ctx, { query: '이서' })) as Loose).contacts.map((c: Loose) => c.name)).toEqual([
      '이서연',
      '이서준',
    ]);
    const several: Loose = await contacts.get_detail(ctx, { name: '이서' });
    expect(several.contacts).toHaveLength(2);
    expect(((await contacts.get_detail(ctx, { name: '이서연' })) as Loose).contact.phones).toEqual([
      { value: '010-2222-3333' },
    ]);
    // A number is one number with the country code or the trunk 0, whichever way the card and the query write it.
    const byPhone = async (query: string) =>
      ((await contacts.search(ctx, { query })) as Loose).contacts.map((c: Loose) => c.name);
    expect(await byPhone('+82 10-2222-3333')).toEqual(['이서연']);
    expect(await byPhone('2222-3333')).toEqual(['이서연']);
    writeFileSync(
      join(bundle, 'people.vcf'),
      'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:김민수\r\nTEL;TYPE=CELL:+82-10-4444-5555\r\nEND:VCARD\r\n',
    );
    expect(await byPhone('010-4444-5555')).toEqual(['김민수']);
    expect(await byPhone('010')).toEqual([]);
    expect(await failure(contacts.search(fileContext({}).ctx, { query: 'x' }))).toMatchObject({
      code: 'E_CONTACTS_NOT_CONFIGURED',
    });
  });
});

describe('availability', () => {
  test('calendar and contacts are not offered until an Agent configures a backend; categories follow the catalogue', async () => {
    const documents = Bun.YAML.parse(await Bun.file(join(assistantBundleDir, 'goondan.yaml')).text()) as Loose[];
    for (const name of ['calendar', 'contacts']) {
      const requires = documents.find((doc) => doc.kind === 'Tool' && doc.metadata.name === name).spec.requires;
      const context = (config: JsonObject) => ({ platform: process.platform, env: {}, config });
      expect(checkAvailability([requires], context({}))).toMatchObject({
        available: false,
        reason: expect.stringContaining('backend'),
      });
      expect(checkAvailability([requires], context({ backend: 'file', file: 'x' }))).toMatchObject({ available: true });
    }
    // The catalogue's classes: reading is safe, changing a calendar sensitive, workspaces sensitive.
    const tool = (name: string) => documents.find((doc) => doc.kind === 'Tool' && doc.metadata.name === name).spec;
    const categories = (name: string) =>
      tool(name).exports.map((exported: Loose) => [exported.name, exported.category ?? tool(name).category]);
    expect(categories('calendar')).toEqual([
      ['list_events', 'safe'],
      ['create_event', 'sensitive'],
      ['delete_event', 'sensitive'],
    ]);
    expect(new Set(categories('contacts').map(([, category]: string[]) => category))).toEqual(new Set(['safe']));
    expect(new Set(categories('workspace').map(([, category]: string[]) => category))).toEqual(new Set(['sensitive']));
  });
});
