import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type JsonObject, type OAuthTokenResult, provideOAuthService, redactKnownSecrets } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { handlers as calendar } from '../tools/calendar/index.ts';
import { handlers as contacts } from '../tools/contacts/index.ts';
import { type Radicale, startRadicale } from './radicale.ts';

// biome-ignore lint/suspicious/noExplicitAny: handlers answer JSON; tests read it loosely.
type Loose = any;

const PASSWORD = 'pw-Radicale-7731';
let server: Radicale;
const bundle = mkdtempSync(join(tmpdir(), 'calendar-caldav-'));

beforeAll(async () => {
  server = await startRadicale({
    users: { alice: PASSWORD },
    collections: {
      'alice/work': { tag: 'VCALENDAR', displayName: '업무' },
      'alice/home': { tag: 'VCALENDAR', displayName: 'Home' },
      'alice/people': { tag: 'VADDRESSBOOK', displayName: '주소록' },
    },
  });
});
afterAll(async () => {
  await server?.stop();
});

function context(kind: 'caldav' | 'carddav', server: JsonObject, extra: JsonObject = {}) {
  return createTestToolContext({
    workdir: join(bundle, '.goondan', 'workspaces', 'assistant', 'default'),
    config: { backend: kind, server, timeZone: 'Asia/Seoul', ...extra },
  });
}
const alice = () => ({
  url: server.url,
  username: 'alice',
  password: { valueFrom: { env: 'TEST_RADICALE_PASSWORD' } },
});
process.env.TEST_RADICALE_PASSWORD = PASSWORD;

async function put(path: string, body: string, type: string) {
  const response = await fetch(new URL(path, server.url), {
    method: 'PUT',
    headers: { authorization: `Basic ${btoa(`alice:${PASSWORD}`)}`, 'content-type': `${type}; charset=utf-8` },
    body,
  });
  expect(response.status).toBeLessThan(300);
}

async function failure(promise: Promise<unknown>): Promise<Loose> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

const weekly = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//EN',
  'BEGIN:VTIMEZONE',
  'TZID:America/New_York',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:-0500',
  'TZOFFSETTO:-0400',
  'DTSTART:20070311T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:-0400',
  'TZOFFSETTO:-0500',
  'DTSTART:20071104T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
  'BEGIN:VEVENT',
  'UID:standup-1',
  'DTSTAMP:20261001T000000Z',
  'DTSTART;TZID=America/New_York:20261026T090000',
  'DTEND;TZID=America/New_York:20261026T093000',
  'SUMMARY:주간 스탠드업 (weekly)',
  'RRULE:FREQ=WEEKLY;COUNT=6',
  'EXDATE;TZID=America/New_York:20261109T090000',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:standup-1',
  'DTSTAMP:20261001T000000Z',
  'RECURRENCE-ID;TZID=America/New_York:20261116T090000',
  'DTSTART;TZID=America/New_York:20261116T110000',
  'DTEND;TZID=America/New_York:20261116T113000',
  'SUMMARY:주간 스탠드업 (moved)',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('calendar over CalDAV (radicale on 127.0.0.1)', () => {
  test('a repeating event is expanded in the range across a DST change, with EXDATE and a moved occurrence', async () => {
    await put('/alice/home/standup-1.ics', weekly, 'text/calendar');
    const listed: Loose = await calendar.list_events(context('caldav', alice()), {
      calendar_name: 'home',
      from: '2026-10-20T00:00:00+09:00',
      days_ahead: 45,
    });
    expect(listed.calendars).toEqual(['Home']);
    expect(listed.events.map((event: Loose) => [event.start, event.title])).toEqual([
      ['2026-10-26T22:00:00+09:00', '주간 스탠드업 (weekly)'], // EDT (-04:00)
      ['2026-11-02T23:00:00+09:00', '주간 스탠드업 (weekly)'], // EST (-05:00) after 1 November
      ['2026-11-17T01:00:00+09:00', '주간 스탠드업 (moved)'], // the override; 9 November is excluded
      ['2026-11-23T23:00:00+09:00', '주간 스탠드업 (weekly)'],
      ['2026-11-30T23:00:00+09:00', '주간 스탠드업 (weekly)'],
    ]);
    expect(listed.events[0]).toMatchObject({ id: 'standup-1', recurring: true, eventTimeZone: 'America/New_York' });
    expect(listed.events[0].end).toBe('2026-10-26T22:30:00+09:00');
  });

  test('create writes TZID with a VTIMEZONE and Korean text intact; list finds it; delete removes it', async () => {
    const ctx = context('caldav', alice());
    const created: Loose = await calendar.create_event(ctx, {
      title: '팀 회의: 분기 계획',
      start_date: '2027-03-02T15:00:00+09:00',
      end_date: '2027-03-02T16:30:00+09:00',
      calendar_name: '업무',
      location: '본사 3층 회의실',
      notes: '자료 준비, 예산 검토',
    });
    expect(created.created).toMatchObject({
      title: '팀 회의: 분기 계획',
      start: '2027-03-02T15:00:00+09:00',
      end: '2027-03-02T16:30:00+09:00',
      calendar: '업무',
      timeZone: 'Asia/Seoul',
    });
    const stored = await fetch(new URL(`/alice/work/${created.created.id}.ics`, server.url), {
      headers: { authorization: `Basic ${btoa(`alice:${PASSWORD}`)}` },
    }).then((response) => response.text());
    expect(stored).toContain('DTSTART;TZID=Asia/Seoul:20270302T150000');
    expect(stored).toContain('BEGIN:VTIMEZONE');
    expect(stored.replace(/\r\n[ \t]/g, '')).toContain('SUMMARY:팀 회의: 분기 계획');

    const listed: Loose = await calendar.list_events(ctx, {
      from: '2027-03-02',
      days_ahead: 0,
      timeZone: 'Europe/London',
    });
    expect(listed.events).toEqual([
      expect.objectContaining({
        id: created.created.id,
        title: '팀 회의: 분기 계획',
        start: '2027-03-02T06:00:00+00:00',
        location: '본사 3층 회의실',
        notes: '자료 준비, 예산 검토',
        calendar: '업무',
      }),
    ]);

    const deleted: Loose = await calendar.delete_event(ctx, { event_id: created.created.id });
    expect(deleted.deleted).toMatchObject({ id: created.created.id, calendar: '업무', title: '팀 회의: 분기 계획' });
    expect(((await calendar.list_events(ctx, { from: '2027-03-02', days_ahead: 0 })) as Loose).events).toEqual([]);
    expect(await failure(calendar.delete_event(ctx, { event_id: created.created.id }))).toMatchObject({
      code: 'E_CALENDAR_EVENT_NOT_FOUND',
    });
  });

  test('delete takes the whole id: a part of one (a CalDAV text-match is a substring match) deletes nothing', async () => {
    const ctx = context('caldav', alice());
    const created: Loose = await calendar.create_event(ctx, {
      title: 'keep me',
      start_date: '2027-04-06T10:00:00+09:00',
      calendar_name: 'Home',
    });
    const id: string = created.created.id;
    expect(await failure(calendar.delete_event(ctx, { event_id: id.slice(0, 8) }))).toMatchObject({
      code: 'E_CALENDAR_EVENT_NOT_FOUND',
    });
    const listed: Loose = await calendar.list_events(ctx, { from: '2027-04-06', days_ahead: 0 });
    expect(listed.events.map((event: Loose) => event.id)).toEqual([id]);
    await calendar.delete_event(ctx, { event_id: id });
  });

  test('a discovery redirect to another host gets no credentials', async () => {
    const seen: string[] = [];
    const elsewhere = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        seen.push(request.headers.get('authorization') ?? '');
        return new Response('no', { status: 404 });
      },
    });
    const redirecting = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        new Response(null, { status: 301, headers: { location: `http://localhost:${elsewhere.port}/dav/` } }),
    });
    try {
      const ctx = context('caldav', { ...alice(), url: `http://127.0.0.1:${redirecting.port}/` });
      expect(await failure(calendar.list_events(ctx, {}))).toMatchObject({ code: 'E_DAV_REQUEST_FAILED' });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter(Boolean)).toEqual([]);
    } finally {
      redirecting.stop(true);
      elsewhere.stop(true);
    }
  });

  test('discovery against a server that is no CalDAV server says what it answered, where, and what to do', async () => {
    const login = '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>…</form></body></html>';
    const answers: Record<string, (request: Request) => Response> = {
      '/failing/': () => new Response('boom', { status: 500 }),
      '/login/': () => new Response(login, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
      '/cut/': () =>
        new Response('<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/cut/</d:hre', {
          status: 207,
          headers: { 'content-type': 'application/xml; charset=utf-8' },
        }),
      '/plain/': () => new Response('hello', { headers: { 'content-type': 'text/plain' } }),
    };
    const seen: string[] = [];
    const wrong = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path.startsWith('/.well-known/')) return new Response('not here', { status: 404 });
        seen.push(`${request.method} ${path}`);
        const prefix = Object.keys(answers).find((key) => path.startsWith(key));
        // Discovery also asks the server's root: a web page there, as most hosts have.
        return prefix ? (answers[prefix] as (r: Request) => Response)(request) : answers['/login/']!(request);
      },
    });
    const base = `http://127.0.0.1:${wrong.port}`;
    const attempt = async (path: string, kind: 'caldav' | 'carddav' = 'caldav') => {
      const ctx = context(kind, { ...alice(), url: `${base}${path}?token=in-the-query` });
      const error = await failure(
        kind === 'caldav' ? calendar.list_events(ctx, {}) : contacts.search(ctx, { query: 'x' }),
      );
      const shown = JSON.stringify({ code: error.code, message: error.message, suggestion: error.suggestion });
      expect(shown).not.toContain(PASSWORD);
      expect(shown).not.toContain(btoa(`alice:${PASSWORD}`));
      expect(shown).not.toContain('in-the-query');
      expect(error.stack ?? '').not.toContain(PASSWORD);
      return error;
    };
    try {
      const failing = await attempt('/failing/');
      expect(failing.code).toBe('E_DAV_REQUEST_FAILED');
      expect(failing.message).toBe(`${base}/failing/ answered HTTP 500 Internal Server Error to PROPFIND.`);
      expect(failing.suggestion).toContain('try again later');

      const page = await attempt('/login/');
      expect(page.code).toBe('E_DAV_REQUEST_FAILED');
      expect(page.message).toBe(
        `${base}/login/ answered an HTML page (HTTP 200 OK, text/html) to PROPFIND, not CalDAV: is the URL right?`,
      );
      expect(page.suggestion).toContain("account's CalDAV address");

      const cut = await attempt('/cut/');
      expect(cut.code).toBe('E_DAV_REQUEST_FAILED');
      expect(cut.message).toContain(`${base}/cut/ answered HTTP 207 Multi-Status to PROPFIND with XML`);
      expect(cut.message).toContain('broken or cut off');

      const plain = await attempt('/plain/', 'carddav');
      expect(plain.code).toBe('E_DAV_REQUEST_FAILED');
      expect(plain.message).toContain(`${base}/plain/ answered something that is not CardDAV (HTTP 200 OK, text/plain`);
      expect(seen).toContain('PROPFIND /failing/');
    } finally {
      wrong.stop(true);
    }
  });

  test('a redirect loop is E_DAV_REQUEST_FAILED naming the URL, not an unreachable server', async () => {
    const looping = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        return new Response(null, { status: 302, headers: { location: path === '/a/' ? '/b/' : '/a/' } });
      },
    });
    try {
      const url = `http://127.0.0.1:${looping.port}/a/`;
      const error = await failure(calendar.list_events(context('caldav', { ...alice(), url }), {}));
      expect(error.code).toBe('E_DAV_REQUEST_FAILED');
      expect(error.message).toContain('redirects in a loop');
      expect(error.message).toContain(`http://127.0.0.1:${looping.port}/`);
      expect(error.suggestion).toContain('config.server.url');
      expect(JSON.stringify(error)).not.toContain(PASSWORD);
    } finally {
      looping.stop(true);
    }
  });

  test('an event on the server with INTERVAL=0 is read as ical.js does (as 1), with a note, not failing the list', async () => {
    const event = (uid: string, rule: string) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//EN',
        'BEGIN:VEVENT',
        `UID:${uid}`,
        'DTSTAMP:20261001T000000Z',
        'DTSTART:20280301T090000Z',
        'DTEND:20280301T093000Z',
        `SUMMARY:${uid}`,
        `RRULE:${rule}`,
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
    // Radicale stores it (it refuses INTERVAL=often, which ical.js cannot read either).
    await put('/alice/home/zero-interval.ics', event('zero-interval', 'FREQ=DAILY;INTERVAL=0'), 'text/calendar');
    const ctx = context('caldav', alice());
    const listed: Loose = await calendar.list_events(ctx, {
      calendar_name: 'Home',
      from: '2028-03-01',
      days_ahead: 1,
      timeZone: 'UTC',
    });
    expect(listed.events.map((event: Loose) => [event.title, event.start])).toEqual([
      ['zero-interval', '2028-03-01T09:00:00+00:00'],
      ['zero-interval', '2028-03-02T09:00:00+00:00'],
    ]);
    expect(listed.notes).toEqual([
      "'zero-interval' repeats with INTERVAL=0, which RFC 5545 does not allow (a whole number from 1); it was read as ical.js reads it: as INTERVAL=1.",
    ]);
    await calendar.delete_event(ctx, { event_id: 'zero-interval' });
  });

  test('a repetition in words makes an RRULE event', async () => {
    const ctx = context('caldav', alice());
    const created: Loose = await calendar.create_event(ctx, {
      title: '요가',
      start_date: '매주 화요일 저녁 7시',
      calendar_name: 'Home',
    });
    expect(created.created.repeats).toBeTruthy();
    const listed: Loose = await calendar.list_events(ctx, { calendar_name: 'Home', days_ahead: 21 });
    const yoga = listed.events.filter((event: Loose) => event.title === '요가');
    expect(yoga.length).toBeGreaterThanOrEqual(3);
    for (const event of yoga) expect(event.start).toMatch(/T19:00:00\+09:00$/);
    await calendar.delete_event(ctx, { event_id: created.created.id });
  });

  test('an unknown calendar is E_CALENDAR_NOT_FOUND naming the calendars there are', async () => {
    const error = await failure(calendar.list_events(context('caldav', alice()), { calendar_name: 'Wrok' }));
    expect(error).toMatchObject({ code: 'E_CALENDAR_NOT_FOUND' });
    expect(error.suggestion).toContain("'업무'");
    expect(error.suggestion).toContain("'Home'");
  });

  test('a wrong password is E_DAV_UNAUTHORIZED and no password appears in the error', async () => {
    const error = await failure(
      calendar.list_events(
        context('caldav', { url: server.url, username: 'alice', password: 'not-the-Password-9' }),
        {},
      ),
    );
    expect(error).toMatchObject({ code: 'E_DAV_UNAUTHORIZED' });
    const shown = JSON.stringify({ message: error.message, suggestion: error.suggestion, stack: error.stack });
    expect(shown).not.toContain('not-the-Password-9');
    expect(shown).not.toContain(btoa('alice:not-the-Password-9'));
    // Inline passwords and the encoded Basic pair are known secrets: any sink that prints them masks them.
    const leaked = redactKnownSecrets(`pw not-the-Password-9 header Basic ${btoa('alice:not-the-Password-9')}`);
    expect(leaked).not.toContain('not-the-Password-9');
    expect(leaked).not.toContain(btoa('alice:not-the-Password-9'));
  });

  test('a server that is not there is E_DAV_UNREACHABLE; a missing password variable is E_VALUE_SOURCE_ENV', async () => {
    const closed = `http://127.0.0.1:${server.port === 9 ? 10 : 9}/`;
    expect(await failure(calendar.list_events(context('caldav', { ...alice(), url: closed }), {}))).toMatchObject({
      code: 'E_DAV_UNREACHABLE',
    });
    const unset = { ...alice(), password: { valueFrom: { env: 'TEST_RADICALE_UNSET_VARIABLE' } } };
    expect(await failure(calendar.list_events(context('caldav', unset), {}))).toMatchObject({
      code: 'E_VALUE_SOURCE_ENV',
    });
  });

  test('an answer larger than maxResponseBytes is E_DAV_RESPONSE_TOO_LARGE, not read into memory', async () => {
    const big = weekly
      .replace(/standup-1/g, 'big-1')
      .replace('SUMMARY:주간 스탠드업 (weekly)', `SUMMARY:big\r\nDESCRIPTION:${'x'.repeat(60_000)}`);
    await put('/alice/home/big-1.ics', big, 'text/calendar');
    const error = await failure(
      calendar.list_events(context('caldav', alice(), { maxResponseBytes: 20_000 }), {
        calendar_name: 'Home',
        from: '2026-10-20',
        days_ahead: 40,
      }),
    );
    expect(error).toMatchObject({ code: 'E_DAV_RESPONSE_TOO_LARGE' });
    // Within the default bound the long description is cut in the answer.
    const listed: Loose = await calendar.list_events(context('caldav', alice()), {
      calendar_name: 'Home',
      from: '2026-10-20',
      days_ahead: 8,
    });
    const shown = listed.events.find((event: Loose) => event.id === 'big-1');
    expect(shown.notes.length).toBeLessThanOrEqual(501);
  });
});

describe('calendar with a token from an OAuthApp', () => {
  test('the token is sent as a bearer; without a grant the tool answers authorization_required', async () => {
    // A gateway that accepts only the bearer token and forwards to radicale with its Basic login, as a provider's
    // OAuth-protected CalDAV endpoint would.
    const gateway = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        if (request.headers.get('authorization') !== 'Bearer tok-oauth-1') return new Response('no', { status: 401 });
        const url = new URL(request.url);
        const headers = new Headers(request.headers);
        headers.set('authorization', `Basic ${btoa(`alice:${PASSWORD}`)}`);
        const upstream = await fetch(new URL(url.pathname + url.search, server.url), {
          method: request.method,
          headers,
          body: await request.arrayBuffer(),
          redirect: 'manual',
        });
        // fetch has already decoded the body; pass it on plain.
        const answer = new Headers(upstream.headers);
        answer.delete('content-encoding');
        answer.delete('content-length');
        return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers: answer });
      },
    });
    let answer: OAuthTokenResult = {
      status: 'ready',
      accessToken: 'tok-oauth-1',
      tokenType: 'Bearer',
      expiresAt: null,
      scopes: ['calendar'],
    };
    const asked: unknown[] = [];
    provideOAuthService({
      getAccessToken: async (request) => {
        asked.push(request.oauthAppRef);
        return answer;
      },
      pendingAuthorizations: async () => [],
    });
    try {
      const ctx = context('caldav', { url: `http://127.0.0.1:${gateway.port}/`, oauthApp: 'OAuthApp/calendar' });
      const listed: Loose = await calendar.list_events(ctx, {
        calendar_name: 'Home',
        from: '2026-10-20',
        days_ahead: 8,
      });
      expect(listed.calendars).toEqual(['Home']);
      expect(asked).toEqual(['OAuthApp/calendar']);
      answer = {
        status: 'authorization_required',
        authSessionId: 'as-1',
        authorizationUrl: 'http://127.0.0.1/authorize',
        expiresAt: '2026-11-24T00:00:00Z',
        message: 'Open the link to allow calendar access.',
      };
      expect(await calendar.list_events(ctx, {})).toMatchObject({
        status: 'authorization_required',
        authSessionId: 'as-1',
      });
    } finally {
      provideOAuthService(undefined);
      gateway.stop(true);
    }
  });
});

describe('contacts over CardDAV (radicale on 127.0.0.1)', () => {
  test('search by part of a Korean name, a nickname or a phone number; detail of one contact', async () => {
    await put(
      '/alice/people/minji.vcf',
      'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:minji\r\nFN:김민지\r\nN:김;민지;;;\r\nNICKNAME:Minji\r\nTEL;TYPE=CELL:+82-10-1234-5678\r\nEMAIL;TYPE=WORK:minji@example.org\r\nORG:군단 주식회사\r\nBDAY:1990-04-01\r\nNOTE:커피는 라떼\r\nEND:VCARD\r\n',
      'text/vcard',
    );
    await put(
      '/alice/people/john.vcf',
      'BEGIN:VCARD\r\nVERSION:4.0\r\nUID:john\r\nFN:John Smith\r\nEMAIL:john@example.org\r\nTEL:+1 555 0100\r\nEND:VCARD\r\n',
      'text/vcard',
    );
    const ctx = context('carddav', alice());
    const byKorean: Loose = await contacts.search(ctx, { query: '민지' });
    expect(byKorean.contacts).toEqual([
      { name: '김민지', organization: '군단 주식회사', emails: ['minji@example.org'], phones: ['+82-10-1234-5678'] },
    ]);
    expect(((await contacts.search(ctx, { query: '010 1234' })) as Loose).count).toBe(0);
    expect(((await contacts.search(ctx, { query: '1234-5678' })) as Loose).contacts[0].name).toBe('김민지');
    expect(((await contacts.search(ctx, { query: 'smith' })) as Loose).contacts[0].name).toBe('John Smith');
    const detail: Loose = await contacts.get_detail(ctx, { name: 'minji' });
    expect(detail.contact).toMatchObject({
      name: '김민지',
      nicknames: ['Minji'],
      phones: [{ value: '+82-10-1234-5678', type: 'cell' }],
      birthday: '1990-04-01',
      notes: '커피는 라떼',
      addressBook: '주소록',
    });
    expect(await failure(contacts.get_detail(ctx, { name: '박서준' }))).toMatchObject({ code: 'E_CONTACT_NOT_FOUND' });
  });
});
