import type { ToolHandler } from '../../../../types.ts';

export const handlers: Record<string, ToolHandler> = {
  hello: (_ctx, input: { name: string }) => ({ greeting: `Hello, ${input.name}!` }),
  bye: () => 'Bye!',
};
