// Connector/cron of @goondan/base (docs/connectors.md#cron): emits a `tick` event at every occurrence of a cron
// expression (5 fields, or 6 with seconds first), in a time zone, with the text to give the agent. The scheduler of
// `gdn serve` computes the occurrences (croner), so the expression reads as `gdn schedules add --cron` does.
// Occurrences missed while the process was down are not made up for; use the scheduler for that. It stops ticking
// when the host takes no more events (ctx.quiesced: shutdown).
import { GoondanError, nextOccurrence } from '@goondan/core';
import { resolveTimeZone } from '@goondan/core/time-zone';
import type { ConnectorContext } from '../runtime/connector-types.ts';

/** setTimeout's own limit; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export default async function cron(ctx: ConnectorContext): Promise<void> {
  const expression = ctx.config.SCHEDULE;
  if (!expression) throw new GoondanError('E_SCHEDULE_INVALID', 'config.SCHEDULE (a cron expression) is required');
  const timeZone = ctx.config.TIME_ZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  // Checked here: croner's own complaint about an unknown zone is a TypeError with its stack.
  const zone = resolveTimeZone(timeZone);
  if (!('zone' in zone)) {
    throw new GoondanError('E_SCHEDULE_TIME_ZONE', `config.TIME_ZONE: ${zone.message} ${zone.suggestion}`);
  }
  const text = ctx.config.TEXT ?? `Scheduled: ${expression}`;
  const recurrence = { kind: 'cron' as const, expression, timeZone };
  let next = nextOccurrence(recurrence, Date.now());
  ctx.logger.info(
    `cron '${expression}' (${timeZone}); next at ${next === null ? 'never' : new Date(next).toISOString()}`,
  );
  const quiesced = ctx.quiesced;
  while (next !== null && !quiesced.aborted) {
    const due = next;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(MAX_TIMER_MS, Math.max(0, due - Date.now())));
      quiesced.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    if (quiesced.aborted) break;
    if (Date.now() < due) continue;
    await ctx.emit({
      name: 'tick',
      message: { type: 'text', text },
      properties: { scheduled_at: new Date(due).toISOString(), schedule: expression },
    });
    next = nextOccurrence(recurrence, due);
  }
}
