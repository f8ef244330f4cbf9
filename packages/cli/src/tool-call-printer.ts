import type { TurnObserver } from '@goondan/core';
import { formatDuration } from './format-duration.ts';
import { redactForOutput } from './redact-output.ts';
import { paint, printable } from './terminal.ts';

/**
 * Short one-line form of tool arguments: `{"a":1,"b":2}` cut to fit, redacted like the audit log first (so a cut
 * never leaves the start of a secret).
 */
export function shortArgs(args: unknown, max = 60): string {
  const redacted = redactForOutput(args);
  // A string is the model's raw text (arguments that were not JSON, an error message): no escape of it reaches
  // the terminal. JSON escapes C0 codes itself, but not DEL or C1 codes (an 8-bit CSI).
  const text = printable(typeof redacted === 'string' ? redacted : (JSON.stringify(redacted) ?? ''));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A tool's error message on one line, cut to fit beside the call (the whole of it is in the trace). */
function errorSummary(message: string | undefined, max = 100): string {
  const line = printable((message ?? '').replace(/\s+/g, ' ').trim());
  if (line === '') return '';
  return ` ${line.length > max ? `${line.slice(0, max - 1)}…` : line}`;
}

/**
 * Prints each tool call as it starts and ends: name, short args, status, duration. The duration is the call's own
 * time: a wait for a person's approval is not counted (the runtime leaves it out of `durationMs`).
 */
export function toolCallPrinter(options: {
  write: (line: string) => void;
  /** Or a function, asked at the first line (deciding may touch process.stderr, which costs a start ~20 ms). */
  color: boolean | (() => boolean);
}): TurnObserver {
  let decided: boolean | undefined;
  const colored = () => {
    decided ??= typeof options.color === 'function' ? options.color() : options.color;
    return decided;
  };
  // Whole lines are redacted too: an error message can quote the request that failed, credentials and all. The tool
  // name and the arguments are the model's words: no control character of theirs reaches the terminal.
  const write = (line: string) => options.write(redactForOutput(line));
  return {
    onToolCallStart: ({ toolName, args }) =>
      write(paint(`  ⚙ ${printable(toolName)} ${printable(shortArgs(args))}`, 'dim', colored())),
    onToolCallEnd: ({ toolName, result, durationMs }) => {
      const color = colored();
      const status =
        result.status === 'ok'
          ? paint('ok', 'green', color)
          : result.status === 'pending'
            ? paint(`pending ${printable(result.handle ?? '')}`, 'yellow', color)
            : paint(`error ${printable(result.error?.code ?? '')}`, 'red', color) + errorSummary(result.error?.message);
      write(
        `  ${paint('↳', 'dim', color)} ${printable(toolName)} ${status} ${paint(formatDuration(durationMs), 'dim', color)}`,
      );
    },
  };
}
