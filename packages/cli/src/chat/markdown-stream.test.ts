import { describe, expect, test } from 'bun:test';
import { MarkdownStream, renderMarkdown } from './markdown-stream.ts';
import { replyPrinter } from './reply-printer.ts';

/** A stream whose renderer marks each block, so the tests see where blocks were cut. */
function recorded() {
  const written: string[] = [];
  const stream = new MarkdownStream({ write: (text) => written.push(text), render: (block) => `<${block}>\n` });
  return { stream, written };
}

describe('MarkdownStream', () => {
  test('renders each block once a blank line ends it, and the rest at flush', () => {
    const { stream, written } = recorded();
    stream.push('Hello **wor');
    expect(written).toEqual([]);
    stream.push('ld**.\n\n- one\n');
    expect(written).toEqual(['<Hello **world**.>\n']);
    stream.push('- two');
    stream.flush();
    expect(written).toEqual(['<Hello **world**.>\n', '\n<- one\n- two>\n']);
  });

  test('a fenced code block with blank lines inside is drawn whole', () => {
    const { stream, written } = recorded();
    stream.push('```ts\nconst a = 1;\n\nconst b = 2;\n');
    expect(written).toEqual([]);
    stream.push('```\n\nAfter.');
    expect(written).toEqual(['<```ts\nconst a = 1;\n\nconst b = 2;\n```>\n']);
    stream.flush();
    expect(written.at(-1)).toBe('\n<After.>\n');
  });

  test('renderMarkdown draws a table with Korean cells aligned, plain when colours are off', () => {
    const out = renderMarkdown('| 이름 | n |\n|---|---|\n| 한국어 | 1 |\n| ab | 22 |\n', { color: false });
    const rows = out.split('\n').filter((line) => line.startsWith('|'));
    expect(rows.length).toBe(3);
    expect(new Set(rows.map((row) => Bun.stringWidth(row))).size).toBe(1);
    expect(out).not.toContain('\u001b[');
    expect(renderMarkdown('**bold**', { color: true })).toContain('\u001b[1m');
  });
});

describe('replyPrinter', () => {
  test('into a pipe the reply is written as the model wrote it, after the agent name', () => {
    let out = '';
    const reply = replyPrinter({
      label: () => 'helper',
      color: false,
      markdown: false,
      write: (text) => (out += text),
    });
    reply.push('**Hi** ');
    reply.push('there');
    expect(reply.open).toBe(true);
    reply.end();
    reply.whole('Again.');
    expect(out).toBe('helper> **Hi** there\nhelper> Again.\n');
  });

  test('on a terminal the reply is rendered as Markdown block by block', () => {
    let out = '';
    const reply = replyPrinter({ label: () => 'helper', color: false, markdown: true, write: (text) => (out += text) });
    reply.push('# Plan\n\n1. **first**\n2. second');
    expect(out).toBe('helper> Plan\n====\n');
    reply.end();
    expect(out).toBe('helper> Plan\n====\n\n   1. first\n   2. second\n');
    expect(reply.open).toBe(false);
  });
});
