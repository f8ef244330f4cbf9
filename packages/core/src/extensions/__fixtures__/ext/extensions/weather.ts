import type { ExtensionApi } from '@goondan/core';

/** Test extension: registers a tool on the first step, middlewares of each kind, and uses state. */
export function register(api: ExtensionApi): void {
  const trail: string[] = [];
  api.state.set('loads', ((api.state.get<number>('loads') ?? 0) + 1) as number);
  api.pipeline.register(
    'toolCall',
    async (ctx) => {
      trail.push(`inner ${ctx.toolName}`);
      if (ctx.toolName === 'calc__add' && ctx.args.a === 666) throw new Error('refusing the number of the beast');
      return ctx.next();
    },
    { priority: 10 },
  );
  api.pipeline.register(
    'toolCall',
    async (ctx) => {
      trail.push(`outer ${ctx.toolName}`);
      return ctx.next();
    },
    { priority: -10 },
  );
  api.pipeline.register('step', async (ctx) => {
    if (ctx.stepIndex === 0 && !api.tools.list().some((item) => item.name === 'weather__get')) {
      api.tools.register(
        {
          name: 'weather__get',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        (_ctx, input: { city: string }) => ({
          city: input.city,
          unit: api.config.unit,
          greeting: api.config.greeting,
          trail,
        }),
      );
    }
    return ctx.next();
  });
  api.pipeline.register('turn', async (ctx) => {
    const result = await ctx.next();
    api.state.set('lastTurn', ctx.turnId);
    return result;
  });
}
