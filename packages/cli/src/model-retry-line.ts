import type { TurnObserver } from '@goondan/core';
import { printable } from './terminal.ts';

type ModelRetryEvent = Parameters<NonNullable<TurnObserver['onModelRetry']>>[0];

/**
 * One stderr line per failed model attempt that will be retried, so a server that is down is not silence. The
 * message quotes the server's answer: none of its control characters reaches the terminal.
 */
export function modelRetryLine(event: ModelRetryEvent): string {
  const message = printable(event.message.replace(/\s+/g, ' ').trim());
  const cut = message.length > 120 ? `${message.slice(0, 119)}…` : message;
  const wait = event.delayMs < 1000 ? `${Math.round(event.delayMs)}ms` : `${(event.delayMs / 1000).toFixed(1)}s`;
  return `  ⟳ model ${printable(event.model)}: attempt ${event.attempt} of ${event.maxAttempts} failed (${cut}); retrying in ${wait}`;
}
