import { expect, test } from 'bun:test';
import { type CutLine, LineReader } from './line-reader.ts';

function reader(maxLineBytes: number) {
  const lines: string[] = [];
  const cut: CutLine[] = [];
  const lineReader = new LineReader({
    maxLineBytes,
    onLine: (line) => lines.push(line),
    onCut: (line) => cut.push(line),
  });
  return { push: (text: string) => lineReader.push(Buffer.from(text)), lines, cut };
}

test('lines split across chunks are joined; a \\r before the newline is dropped', () => {
  const r = reader(100);
  r.push('{"a":');
  r.push('1}\r\n{"b"');
  r.push(':2}\n\n');
  expect(r.lines).toEqual(['{"a":1}', '{"b":2}', '']);
  expect(r.cut).toEqual([]);
});

test('a line over the limit is handed over cut (its two ends and its length); the next line is read as usual', () => {
  const r = reader(10);
  r.push('{"id":1,"pad":"');
  r.push('x'.repeat(10_000));
  r.push('","id2":7}\nnext\n');
  expect(r.cut).toHaveLength(1);
  expect(r.cut[0]!.bytes).toBe(15 + 10_000 + 10);
  expect(r.cut[0]!.head).toStartWith('{"id":1,"pad":"xxx');
  expect(r.cut[0]!.tail).toEndWith('xxx","id2":7}');
  expect(r.cut[0]!.head.length).toBeLessThanOrEqual(4096);
  expect(r.lines).toEqual(['next']);
});

test('a line of exactly the limit is a line', () => {
  const r = reader(5);
  r.push('12345\n123456\n');
  expect(r.lines).toEqual(['12345']);
  expect(r.cut.map((line) => line.bytes)).toEqual([6]);
});
