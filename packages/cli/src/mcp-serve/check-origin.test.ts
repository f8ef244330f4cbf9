import { expect, test } from 'bun:test';
import { isAllowedOrigin } from './check-origin.ts';

test('no Origin and loopback origins on any port pass; other sites, null and junk are refused', () => {
  for (const origin of [
    null,
    'http://127.0.0.1:6274',
    'http://localhost:3000',
    'https://localhost',
    'http://[::1]:8080',
  ]) {
    expect(isAllowedOrigin(origin, [])).toBe(true);
  }
  for (const origin of [
    'http://evil.example',
    'http://127.0.0.1.evil.example',
    'null',
    'file://',
    'ws://localhost',
    '',
  ]) {
    expect(isAllowedOrigin(origin, [])).toBe(false);
  }
});

test('--allow-origin adds exact origins, or any with *', () => {
  expect(isAllowedOrigin('https://app.example.com', ['https://app.example.com'])).toBe(true);
  expect(isAllowedOrigin('https://app.example.com:444', ['https://app.example.com'])).toBe(false);
  expect(isAllowedOrigin('http://evil.example', ['*'])).toBe(true);
});
