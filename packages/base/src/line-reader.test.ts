import { expect, test } from 'bun:test';
import { type CutLine, idOfCutMessage, isCutRequest, LineReader } from './line-reader.ts';

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

test("a cut message's id is read at its end or among its first members; a request is told from an answer", () => {
  const cut = (head: string, tail: string): CutLine => ({ head, tail, bytes: 1 });
  const answerSdk = cut('{"result":{"content":[{"type":"text","text":"xxx', 'xxx"}]},"jsonrpc":"2.0","id":12}');
  expect(idOfCutMessage(answerSdk)).toBe(12);
  expect(isCutRequest(answerSdk)).toBe(false);
  const answerIdFirst = cut('{"jsonrpc":"2.0","id":"a-7","result":{"content":[', 'xxx"}]}}');
  expect(idOfCutMessage(answerIdFirst)).toBe('a-7');
  expect(isCutRequest(answerIdFirst)).toBe(false);
  const request = cut('{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"x":"', 'xx"}}');
  expect(isCutRequest(request)).toBe(true);
  // An "id" nested in the result is not the message's.
  expect(idOfCutMessage(cut('{"result":{"items":[{"id":5,"name":"xx', 'xx"}]}'))).toBeNull();
});
