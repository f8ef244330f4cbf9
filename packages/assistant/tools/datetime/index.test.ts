import { describe, expect, test } from 'bun:test';
import { tmpdir } from 'node:os';
import { createTestToolContext } from '@goondan/core/testing';
import { describeInstant, handlers } from './index.ts';

describe('datetime__now', () => {
  test('gives the wall-clock time of an instant in the zone asked for, with its offset', () => {
    const instant = Date.UTC(2026, 10, 23, 15, 4, 5);
    expect(describeInstant(instant, 'Asia/Seoul')).toEqual({
      iso: '2026-11-24T00:04:05+09:00',
      timeZone: 'Asia/Seoul',
      offset: '+09:00',
      weekday: 'Tuesday',
      epochMs: instant,
    });
    expect(describeInstant(instant, 'UTC').iso).toBe('2026-11-23T15:04:05+00:00');
  });

  test('follows daylight saving time: New York is -04:00 in July and -05:00 in December', () => {
    expect(describeInstant(Date.UTC(2026, 6, 1, 12), 'America/New_York').iso).toBe('2026-07-01T08:00:00-04:00');
    expect(describeInstant(Date.UTC(2026, 11, 1, 12), 'America/New_York').iso).toBe('2026-12-01T07:00:00-05:00');
  });

  test('without a zone names the host zone it used', async () => {
    const result = await handlers.now(createTestToolContext({ workdir: tmpdir() }), {});
    expect(result.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(Math.abs(result.epochMs - Date.now())).toBeLessThan(60_000);
  });

  test('an unknown zone is E_TOOL_INVALID_ARGS with a suggestion', () => {
    expect(() => describeInstant(0, 'Mars/Olympus')).toThrow("Unknown time zone 'Mars/Olympus'.");
  });
});

describe('datetime__parse', () => {
  test('echoes the absolute time of a phrase with its zone', async () => {
    const result = await handlers.parse(createTestToolContext({ workdir: tmpdir() }), {
      text: 'in 20 minutes',
      timeZone: 'Asia/Seoul',
    });
    if (result.kind !== 'instant') throw new Error('expected an instant');
    expect(result.timeZone).toBe('Asia/Seoul');
    expect(result.iso).toMatch(/\+09:00$/);
    expect(Math.abs(result.epochMs - (Date.now() + 20 * 60_000))).toBeLessThan(60_000);
  });

  test('an impossible date is E_WHEN_INVALID', async () => {
    await expect(
      handlers.parse(createTestToolContext({ workdir: tmpdir() }), { text: '2월 30일', timeZone: 'Asia/Seoul' }),
    ).rejects.toMatchObject({ code: 'E_WHEN_INVALID' });
  });
});
