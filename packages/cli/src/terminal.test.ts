import { afterEach, expect, test } from 'bun:test';
import { paint, printable, useColor, usePlainConsole } from './terminal.ts';

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

test('the plain console formats like util.format and never colours: standard output and error apart', () => {
  const out: string[] = [];
  const err: string[] = [];
  const target = { log: () => {} } as unknown as Console;
  usePlainConsole(target, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
  target.log('%s has %d', 'x', 2, { a: [1] });
  target.info('info');
  target.dir({ b: 'c' });
  target.error('failed:', new Map([['k', 1]]));
  target.warn('warned');
  target.trace('here');
  target.assert(true, 'not printed');
  target.assert(false, 'printed');
  expect(out).toEqual(['x has 2 { a: [ 1 ] }\n', 'info\n', "{ b: 'c' }\n"]);
  expect(err.slice(0, 2)).toEqual(["failed: Map(1) { 'k' => 1 }\n", 'warned\n']);
  expect(err[2]).toStartWith('Trace: here\n    at ');
  expect(err[3]).toBe('Assertion failed: printed\n');
  expect([...out, ...err].join('')).not.toContain('\u001b[');
});

test("without a stream for tests, standard output's lines go to the console's own log, one string each", () => {
  const printed: unknown[][] = [];
  const target = { log: (...args: unknown[]) => printed.push(args) } as unknown as Console;
  usePlainConsole(target, { stderr: () => {} });
  target.log('100%s done', 'x', { a: 1 });
  target.log();
  expect(printed).toEqual([['100x done { a: 1 }'], ['']]);
});

test("printable: a model's control characters never reach the terminal; newlines, tabs and CRLF stay", () => {
  expect(printable('clear\u001b[2J title\u001b]0;pwned\u0007 nul\u0000 c1\u009b del\u007f')).toBe(
    'clear\ufffd[2J title\ufffd]0;pwned\ufffd nul\ufffd c1\ufffd del\ufffd',
  );
  expect(printable('a\tb\r\nc\nd\re')).toBe('a\tb\r\nc\nd\ufffde');
  expect(printable('plain — ünïcode ✓')).toBe('plain — ünïcode ✓');
});
