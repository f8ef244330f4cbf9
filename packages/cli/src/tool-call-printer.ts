import type { TurnObserver } from '@goondan/core';
import { paint } from './terminal.ts';

/** Short one-line form of tool arguments: `{"a":1,"b":2}` cut to fit. */
export function shortArgs(args: unknown, max = 60): string {
  const text = typeof args === 'string' ? args : (JSON.stringify(args) ?? '');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Prints each tool call as it starts and ends: name, short args, status, duration. */
export function toolCallPrinter(options: { write: (line: string) => void; color: boolean }): TurnObserver {
  const { write, color } = options;
  return {
    onToolCallStart: ({ toolName, args }) => write(paint(`  ⚙ ${toolName} ${shortArgs(args)}`, 'dim', color)),
    onToolCallEnd: ({ toolName, result, durationMs }) => {
      const status =
        result.status === 'ok'
          ? paint('ok', 'green', color)
          : result.status === 'pending'
            ? paint(`pending ${result.handle}`, 'yellow', color)
            : paint(`error ${result.error?.code ?? ''}`, 'red', color);
      write(`  ${paint('↳', 'dim', color)} ${toolName} ${status} ${paint(`${durationMs}ms`, 'dim', color)}`);
    },
  };
}
