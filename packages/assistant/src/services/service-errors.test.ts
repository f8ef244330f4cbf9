import { describe, expect, test } from 'bun:test';
import { originOf, quoteServiceText, retryAfterSeconds, serviceHttpError } from './service-errors.ts';

describe('service errors', () => {
  test('retry-after in seconds or as an HTTP date; anything else is unknown', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds('Mon, 23 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });

  test('statuses map to codes; the quoted body is one short line; an origin never shows a path or query', () => {
    expect(serviceHttpError({ service: 'S', status: 401 }).code).toBe('E_SERVICE_AUTH');
    expect(serviceHttpError({ service: 'S', status: 403, rateLimited: true, retryAfter: 5 }).suggestion).toContain(
      '5 s',
    );
    expect(serviceHttpError({ service: 'S', status: 404 }).code).toBe('E_SERVICE_NOT_FOUND');
    expect(serviceHttpError({ service: 'S', status: 503 }).code).toBe('E_SERVICE_FAILED');
    expect(quoteServiceText(`a\n\n b ${'x'.repeat(400)}`)).toMatch(/^a b x+…$/);
    expect(quoteServiceText('x'.repeat(400)).length).toBe(301);
    expect(originOf('https://api.example.test/search?key=secret')).toBe('https://api.example.test');
  });
});
