import type { ToolContext } from '../types.ts';

/**
 * The handlers object of one Tool, typed by its exports' inputs: one handler per export, each receiving the input
 * its `parameters` schema describes. `gdn types` writes the inputs (`goondan-tools.d.ts`), so the schema is written
 * once, in YAML; a missing handler, an unknown export or a wrong field is a type error.
 *
 * @example
 * import type { ToolHandlers } from '@goondan/core';
 * import type { ToolInputs } from '../../goondan-tools';
 *
 * export const handlers: ToolHandlers<ToolInputs['greet']> = {
 *   hello: (_ctx, input) => ({ greeting: `Hello, ${input.name}!` }),
 * };
 */
export type ToolHandlers<Inputs extends object> = {
  [Export in keyof Inputs]: (ctx: ToolContext, input: Inputs[Export]) => unknown;
};
