import { GoondanError } from '../errors/goondan-error.ts';
import type { JsonObject, JsonValue, ToolContext, ToolHandler } from '../types.ts';

/** Calls that would change more items than this need `confirm: true`, unless the Tool's config says otherwise. */
export const DEFAULT_CONFIRM_ABOVE = 5;
/** A preview lists at most this many changes; `count` is always the full number. */
export const PREVIEW_CHANGE_LIMIT = 50;

/** The two flags a guarded tool reads from its input. */
export interface GuardrailFlags {
  preview?: boolean;
  confirm?: boolean;
}

/** What a call would do, worked out without doing it. */
export interface GuardrailPlan {
  /** One entry per affected item, as the model should see it (e.g. `{ file, line, before, after }`). */
  changes: JsonValue[];
  /** One line for people and models, e.g. `7 occurrences in 3 files`. */
  summary?: string;
  /** Makes the changes and returns the tool's result. Called at most once, and never for a preview. */
  apply: () => JsonValue | Promise<JsonValue>;
}

// biome-ignore lint/suspicious/noExplicitAny: like ToolHandler, a planner narrows the input to its own type.
export type GuardrailPlanner<Input = any> = (ctx: ToolContext, input: Input) => GuardrailPlan | Promise<GuardrailPlan>;

export interface GuardrailOptions {
  /** The threshold when `ctx.config.confirmAbove` sets none (default 5). */
  confirmAbove?: number;
}

/** The output of a call with `preview: true` (a type, not an interface, so that it is a JsonObject). */
export type GuardrailPreview = {
  preview: true;
  count: number;
  changes: JsonValue[];
  changesShown: number;
  truncated: boolean;
  summary: string;
  threshold: number;
  needsConfirm: boolean;
  note: string;
};

function isThreshold(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function readFlag(input: unknown, name: keyof GuardrailFlags): boolean {
  const value = (input as Record<string, unknown> | null | undefined)?.[name];
  if (value === undefined) return false;
  // A string "true" must not turn a preview into a real change: only booleans are accepted.
  if (typeof value !== 'boolean')
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${name}' must be true or false, got ${JSON.stringify(value)}.`);
  return value;
}

function thresholdFor(ctx: ToolContext, fallback: number): number {
  const configured = ctx.config?.confirmAbove;
  if (configured === undefined) return fallback;
  if (isThreshold(configured)) return configured;
  ctx.logger.warn(`config.confirmAbove must be a non-negative integer; using ${fallback}.`);
  return fallback;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Makes a destructive tool safe to hand to a model: the handler only plans, and the wrapper decides whether the
 * plan runs. `preview: true` answers with the planned changes and changes nothing; a plan of more than
 * `confirmAbove` changes (the Tool's `config.confirmAbove`, else `options.confirmAbove`, else 5) is refused with
 * E_CONFIRM_REQUIRED unless the call says `confirm: true`.
 *
 * @example
 * export const handlers = {
 *   purge: withGuardrail(async (ctx, input: { tag: string }) => {
 *     const notes = await findNotes(ctx.workdir, input.tag);
 *     return {
 *       changes: notes.map((note) => ({ note: note.id, title: note.title })),
 *       summary: `${notes.length} notes tagged ${input.tag}`,
 *       apply: async () => ({ deleted: await deleteNotes(notes) }),
 *     };
 *   }),
 * };
 */
// biome-ignore lint/suspicious/noExplicitAny: the planner's own annotation gives the input its type.
export function withGuardrail<Input = any>(plan: GuardrailPlanner<Input>, options: GuardrailOptions = {}): ToolHandler {
  const fallback = options.confirmAbove ?? DEFAULT_CONFIRM_ABOVE;
  if (!isThreshold(fallback)) throw new TypeError(`confirmAbove must be a non-negative integer, got ${fallback}.`);
  return async function guardedHandler(ctx: ToolContext, input: Input): Promise<JsonValue> {
    const preview = readFlag(input, 'preview');
    const confirm = readFlag(input, 'confirm');
    const threshold = thresholdFor(ctx, fallback);
    const planned = await plan(ctx, input);
    const count = planned.changes.length;
    const summary = planned.summary ?? `${plural(count, 'item')} would change`;
    const needsConfirm = count > threshold;
    if (preview) {
      const shown = planned.changes.slice(0, PREVIEW_CHANGE_LIMIT);
      const result: GuardrailPreview = {
        preview: true,
        count,
        changes: shown,
        changesShown: shown.length,
        truncated: shown.length < count,
        summary,
        threshold,
        needsConfirm,
        note: needsConfirm
          ? 'Nothing was changed. To apply, call again with the same arguments, without preview and with confirm: true.'
          : 'Nothing was changed. To apply, call again with the same arguments, without preview.',
      };
      return result;
    }
    if (needsConfirm && !confirm) {
      throw new GoondanError(
        'E_CONFIRM_REQUIRED',
        `This call would change ${plural(count, 'item')} (${summary}); more than ${threshold} at once need confirm: true. ` +
          'Nothing was changed. Call it with preview: true to see the changes, then again with confirm: true.',
      );
    }
    // The executor has already answered a call that timed out or was cancelled; its plan must not run late.
    if (ctx.signal.aborted)
      throw new GoondanError('E_TOOL_ABORTED', 'The call was cancelled before its changes were applied.');
    return await planned.apply();
  };
}

/**
 * The `preview` and `confirm` properties of a guarded tool's parameters schema, to merge into `properties`.
 *
 * @example
 * parameters: { type: 'object', properties: { tag: { type: 'string' }, ...guardrailParameters() }, required: ['tag'] }
 */
export function guardrailParameters(): { preview: JsonObject; confirm: JsonObject } {
  return {
    preview: {
      type: 'boolean',
      description: `Only show what would change (count and the first ${PREVIEW_CHANGE_LIMIT} changes); change nothing (default false).`,
    },
    confirm: {
      type: 'boolean',
      description:
        'Required when the call would change more items than the tool allows at once (5 unless configured); preview first (default false).',
    },
  };
}
