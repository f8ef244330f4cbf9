import { expect, test } from 'bun:test';
import { replyPrinter } from './reply-printer.ts';

function print(markdown: boolean, text: string): string {
  let out = '';
  const reply = replyPrinter({ label: () => 'agent', color: false, markdown, write: (piece) => (out += piece) });
  reply.whole(text);
  return out;
}

test("the reply carries no control character of the model's, on a terminal or into a pipe; its lines stay", () => {
  const text = 'Done.\u001b]0;pwned\u0007\u001b[2J\r\n\tnext line';
  expect(print(true, text)).toContain('Done.\ufffd]0;pwned\ufffd\ufffd[2J');
  expect(print(true, text)).not.toContain('\u001b');
  expect(print(false, text)).toContain('Done.\ufffd]0;pwned\ufffd\ufffd[2J\r\n\tnext line');
});
