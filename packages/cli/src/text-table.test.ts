import { expect, test } from 'bun:test';
import { paint } from './terminal.ts';
import { formatTable } from './text-table.ts';

test('columns line up by display width: Korean takes two columns, colour codes none', () => {
  const lines = formatTable([
    ['이름', paint('ok', 'green', true), 'last'],
    ['ab', 'error', 'x'],
  ]);
  expect(lines.map((line) => Bun.stripANSI(line))).toEqual(['이름  ok     last', 'ab    error  x']);
});
