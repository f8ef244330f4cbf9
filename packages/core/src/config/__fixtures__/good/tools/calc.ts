import type { ToolHandler } from '../../../../types.ts';

export const handlers: Record<string, ToolHandler> = {
  add: (_ctx, input: { a: number; b: number | null }) => input.a + (input.b ?? 0),
  /** Not declared in exports, so the loader must not hand it out. */
  hidden: () => 'secret',
};
