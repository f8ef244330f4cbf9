import { expect, test } from 'bun:test';
import { forwardLines, MAX_OUTPUT_LINE_CHARS } from './spawn-agent-process.ts';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

test('lines are handed on as they end; a line with no end in sight goes on in pieces, none longer than the cap', async () => {
  const lines: string[] = [];
  const endless = 'x'.repeat(MAX_OUTPUT_LINE_CHARS);
  // Three and a half caps' worth of one line, written in pieces as a tool printing without a newline does.
  await forwardLines(
    streamOf(['first\nsec', 'ond\n', endless, endless, endless, 'x'.repeat(100), '\nlast']),
    (line, stream) => lines.push(`${stream}:${line.length}:${line.slice(0, 6)}`),
    'stdout',
  );
  expect(lines).toEqual([
    'stdout:5:first',
    'stdout:6:second',
    `stdout:${MAX_OUTPUT_LINE_CHARS}:xxxxxx`,
    `stdout:${MAX_OUTPUT_LINE_CHARS}:xxxxxx`,
    `stdout:${MAX_OUTPUT_LINE_CHARS}:xxxxxx`,
    'stdout:100:xxxxxx',
    'stdout:4:last',
  ]);
});
