import { describe, expect, test } from 'bun:test';
import { boundLineLength, OVERLONG_LINE } from './bounded-lines.ts';

/** What the transform passes on for `chunks` written one after another, as text. */
async function through(limit: number, chunks: string[]): Promise<string> {
  const bounded = boundLineLength(limit);
  const out: Buffer[] = [];
  bounded.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => bounded.on('end', resolve));
  for (const chunk of chunks) bounded.write(Buffer.from(chunk));
  bounded.end();
  await ended;
  return Buffer.concat(out).toString('utf8');
}

describe('boundLineLength', () => {
  test('lines within the limit pass unchanged, split across chunks or not, with \\n, \\r and \\r\\n ends', async () => {
    expect(await through(10, ['one\ntw', 'o\r\nthree\rfour'])).toBe('one\ntwo\r\nthree\rfour');
    expect(await through(3, ['abc\n', '\n'])).toBe('abc\n\n');
  });

  test('a longer line becomes OVERLONG_LINE in its place, whether it ends or input ends first', async () => {
    expect(await through(3, ['ok\nabcd', 'efgh\nnxt\n'])).toBe(`ok\n${OVERLONG_LINE}\nnxt\n`);
    expect(await through(3, ['ok\n', 'abcd'])).toBe(`ok\n${OVERLONG_LINE}\n`);
  });

  test('a multi-byte character split between chunks reaches readline whole', async () => {
    const bytes = Buffer.from('é\n');
    const bounded = boundLineLength(10);
    const out: Buffer[] = [];
    bounded.on('data', (chunk: Buffer) => out.push(chunk));
    bounded.write(bytes.subarray(0, 1));
    bounded.write(bytes.subarray(1));
    bounded.end();
    await new Promise((resolve) => bounded.on('end', resolve));
    expect(out).toHaveLength(1);
    expect(out[0]!.toString('utf8')).toBe('é\n');
  });

  test('what it holds stays under the limit however long a line without an end goes on', async () => {
    const bounded = boundLineLength(1024);
    const passed: Buffer[] = [];
    bounded.on('data', (chunk: Buffer) => passed.push(chunk));
    for (let index = 0; index < 1000; index += 1) bounded.write(Buffer.alloc(64 * 1024, 0x7a));
    bounded.write(Buffer.from('\nafter\n'));
    bounded.end();
    await new Promise((resolve) => bounded.on('end', resolve));
    expect(Buffer.concat(passed).toString('utf8')).toBe(`${OVERLONG_LINE}\nafter\n`);
  });
});
