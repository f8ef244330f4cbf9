import type { JsonValue, ToolCallMiddleware, TurnMiddleware } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';

/** Identical calls allowed per turn by default; the next one is answered with a hint (E_TOOL_REPEATED). */
export const DEFAULT_REPEAT_LIMIT = 2;

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are the same call. */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === null || value === undefined || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
}

/**
 * The loop guard of the assistant catalogue's lesson (list/enable round trips made the model loop): within one
 * turn, a call with the same tool and the same arguments as `limit` earlier calls is not run; the model gets
 * E_TOOL_REPEATED with a hint to use the earlier results or change the arguments. Counting starts afresh with each
 * turn; calls outside a turn (`gdn tools call`) are never counted. `limit` 0 turns the guard off.
 */
export function repeatGuard(limit: number): { turn: TurnMiddleware; toolCall: ToolCallMiddleware } {
  let counts: Map<string, number> | undefined;
  return {
    turn: async function repeatGuardTurn(ctx) {
      const outer = counts;
      counts = new Map();
      try {
        return await ctx.next();
      } finally {
        counts = outer;
      }
    },
    toolCall: async function repeatGuardToolCall(ctx) {
      if (limit === 0 || !counts) return ctx.next();
      const args = canonicalJson(ctx.args);
      const key = `${ctx.toolName}\u0000${args}`;
      const seen = counts.get(key) ?? 0;
      counts.set(key, seen + 1);
      if (seen < limit) return ctx.next();
      throw new GoondanError(
        'E_TOOL_REPEATED',
        `Not run: ${ctx.toolName} was already called ${seen} times in this turn with these same arguments ` +
          `(${args.length > 200 ? `${args.slice(0, 199)}…` : args}). Its earlier results are above in the ` +
          'conversation: use them, call it with different arguments, or answer the user.',
      );
    },
  };
}
