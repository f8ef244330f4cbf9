import { expect, test } from 'bun:test';
import { EventEmitter } from 'node:events';
import { bracketedPaste } from './bracketed-paste.ts';

function terminal() {
  const written: string[] = [];
  const input = new EventEmitter() as NodeJS.ReadStream;
  const output = { write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
  const key = (name: string) => input.emit('keypress', undefined, { name });
  return { input, output, written, key };
}

test('the lines of a paste are held and sent as one message with the line Enter ends after it', () => {
  const tty = terminal();
  const paste = bracketedPaste({ ...tty, enabled: true });
  expect(tty.written).toEqual(['\x1b[?2004h']);
  expect(paste.take('typed alone')).toBe('typed alone');
  tty.key('paste-start');
  expect(paste.take('first line')).toBeNull();
  expect(paste.take('second line')).toBeNull();
  tty.key('paste-end');
  // What follows the paste's last newline, up to Enter, is the message's last line.
  expect(paste.take('third, typed after')).toBe('first line\nsecond line\nthird, typed after');
  // A paste that ended with a newline: Enter right after it adds no empty line.
  tty.key('paste-start');
  expect(paste.take('only line')).toBeNull();
  tty.key('paste-end');
  expect(paste.take('')).toBe('only line');
  expect(paste.take('next')).toBe('next');
  paste.dispose();
  paste.dispose();
  expect(tty.written).toEqual(['\x1b[?2004h', '\x1b[?2004l']);
  expect(tty.input.listenerCount('keypress')).toBe(0);
});

test('off the terminal (a pipe) nothing is written and every line is a message', () => {
  const tty = terminal();
  const paste = bracketedPaste({ ...tty, enabled: false });
  tty.key('paste-start');
  expect(paste.take('a')).toBe('a');
  paste.dispose();
  expect(tty.written).toEqual([]);
});
