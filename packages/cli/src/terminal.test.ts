import { afterEach, expect, test } from 'bun:test';
import { paint, useColor } from './terminal.ts';

const saved = { FORCE_COLOR: process.env.FORCE_COLOR, NO_COLOR: process.env.NO_COLOR, TERM: process.env.TERM };
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

function colorWith(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  for (const key of Object.keys(saved)) delete process.env[key];
  Object.assign(process.env, env);
  return useColor({ isTTY });
}

test('colours: a terminal gets them, a pipe not; FORCE_COLOR forces them, NO_COLOR and FORCE_COLOR=0 turn them off', () => {
  expect(colorWith({}, true)).toBe(true);
  expect(colorWith({}, false)).toBe(false);
  expect(colorWith({ TERM: 'dumb' }, true)).toBe(false);
  expect(colorWith({ NO_COLOR: '1' }, true)).toBe(false);
  expect(colorWith({ FORCE_COLOR: '1' }, false)).toBe(true);
  expect(colorWith({ FORCE_COLOR: '' }, false)).toBe(true);
  expect(colorWith({ FORCE_COLOR: '1', NO_COLOR: '1' }, false)).toBe(true);
  expect(colorWith({ FORCE_COLOR: '0' }, true)).toBe(false);
  expect(colorWith({ FORCE_COLOR: 'false' }, true)).toBe(false);
  expect(paint('x', 'red', false)).toBe('x');
  expect(paint('x', 'red', true)).toBe('\u001b[31mx\u001b[39m');
});
