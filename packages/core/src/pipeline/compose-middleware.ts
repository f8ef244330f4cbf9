/**
 * The onion (spec §8.1), shared by turn, step and toolCall middleware. The chain is checked once when it is
 * built; per call, each layer gets a context whose `next()` runs the rest, and a second `next()` is refused.
 */
export type Middleware<Context, Result> = (ctx: Context) => Promise<Result>;

export interface ComposeOptions<State, Context, Result> {
  middlewares: readonly Middleware<Context, Result>[];
  /** Makes the context a layer sees from the shared state and that layer's `next`. */
  bind: (state: State, next: () => Promise<Result>) => Context;
  core: (state: State) => Promise<Result>;
}

export function composeMiddleware<State, Context, Result>(
  options: ComposeOptions<State, Context, Result>,
): (state: State) => Promise<Result> {
  const { bind, core } = options;
  const layers = [...options.middlewares];
  for (const [index, layer] of layers.entries()) {
    if (typeof layer !== 'function') throw new TypeError(`Middleware at position ${index} is not a function`);
  }
  if (layers.length === 0) return core;
  const last = layers.length - 1;
  // Per call and layer: the layer's `next` and its context, nothing else (no closure per call around them).
  const dispatch = (state: State, index: number): Promise<Result> => {
    let called = false;
    const next = () => {
      if (called) return refusedSecondNext<Result>();
      called = true;
      return index === last ? core(state) : dispatch(state, index + 1);
    };
    try {
      return layers[index]!(bind(state, next));
    } catch (thrown) {
      return Promise.reject(thrown);
    }
  };
  return (state) => dispatch(state, 0);
}

/**
 * A second next() of one layer: rejected for the layer that awaits it, and marked handled, so a layer that does not
 * await it is not reported as an unhandled rejection (which the process guard would pin on whatever call runs).
 */
function refusedSecondNext<Result>(): Promise<Result> {
  const refused = Promise.reject<Result>(new Error('next() called more than once in one middleware'));
  refused.catch(() => {});
  return refused;
}
