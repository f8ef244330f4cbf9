import type { Temporal as TemporalApi } from 'temporal-spec';

/**
 * Bun ships `Temporal` (time zones and DST without a date library); TypeScript's lib does not declare it yet,
 * so the types come from temporal-spec. Throws at load when the runtime lacks it.
 */
export const Temporal: typeof TemporalApi = (globalThis as unknown as { Temporal: typeof TemporalApi }).Temporal;
if (!Temporal) throw new Error('This runtime has no Temporal; the scheduler needs Bun 1.4 or later.');
