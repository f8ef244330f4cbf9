/** calculate__eval: arithmetic on a locked-down mathjs (src/calculate/safe-math.ts); mathjs is imported on first call. */
import type { ToolContext } from '@goondan/core';
import { calculate } from '../../src/calculate/safe-math.ts';

export const handlers = {
  eval: (_ctx: ToolContext, input: { expression: string }) => calculate(input.expression),
};
