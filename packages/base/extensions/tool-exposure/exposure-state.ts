import type { ExtensionState, JsonObject } from '@goondan/core';

/** The state key (per extension, per instance) holding what is enabled: survives restarts, cleared on reset. */
export const EXPOSURE_STATE_KEY = 'exposure';

interface StoredExposure {
  /** Set by tools__enable_ttl; absent means the config default. */
  ttlMinutes?: number;
  /** Tool name → expiry (epoch ms). */
  enabled: Record<string, number>;
}

/** What one enable request did. */
export interface EnableOutcome {
  enabled: string[];
  alreadyEnabled: string[];
  expiresAt: number;
}

const MINUTE_MS = 60_000;

/**
 * The tools enabled on demand for one agent instance, each with an expiry. Every change is written through to
 * the extension's persistent state at once; expired entries are dropped (and written) when next read.
 */
export class ExposureState {
  /** Bumped on every change, so the catalog filter can reuse its previous answer. */
  version = 0;
  private data: StoredExposure;

  constructor(
    private readonly store: ExtensionState,
    private readonly defaultTtlMinutes: number,
  ) {
    this.data = readStored(store.get(EXPOSURE_STATE_KEY));
  }

  get ttlMinutes(): number {
    return this.data.ttlMinutes ?? this.defaultTtlMinutes;
  }

  /** Enabled tools that have not expired at `now`, name → expiry. */
  active(now: number): ReadonlyMap<string, number> {
    let expired = false;
    const active = new Map<string, number>();
    for (const [name, expiresAt] of Object.entries(this.data.enabled)) {
      if (expiresAt > now) active.set(name, expiresAt);
      else expired = true;
    }
    if (expired) {
      this.data = { ...this.data, enabled: Object.fromEntries(active) };
      this.save();
    }
    return active;
  }

  /** Enables `names` until now + TTL; names already enabled get their expiry renewed and are reported apart. */
  enable(names: readonly string[], now: number): EnableOutcome {
    const active = this.active(now);
    const expiresAt = now + this.ttlMinutes * MINUTE_MS;
    const outcome: EnableOutcome = { enabled: [], alreadyEnabled: [], expiresAt };
    const enabled = { ...this.data.enabled };
    for (const name of new Set(names)) {
      (active.has(name) ? outcome.alreadyEnabled : outcome.enabled).push(name);
      enabled[name] = expiresAt;
    }
    if (names.length > 0) {
      this.data = { ...this.data, enabled };
      this.save();
    }
    return outcome;
  }

  /** Sets the TTL of this instance and renews every enabled tool to expire `minutes` from now. */
  setTtl(minutes: number, now: number): ReadonlyMap<string, number> {
    const expiresAt = now + minutes * MINUTE_MS;
    const enabled = Object.fromEntries([...this.active(now).keys()].map((name) => [name, expiresAt]));
    this.data = { ttlMinutes: minutes, enabled };
    this.save();
    return new Map(Object.entries(enabled));
  }

  /** Back to baseline, default TTL. */
  reset(): void {
    this.data = { enabled: {} };
    this.store.delete(EXPOSURE_STATE_KEY);
    this.version += 1;
  }

  private save(): void {
    const stored: JsonObject = { enabled: this.data.enabled };
    if (this.data.ttlMinutes !== undefined) stored.ttlMinutes = this.data.ttlMinutes;
    this.store.set(EXPOSURE_STATE_KEY, stored);
    this.version += 1;
  }
}

/** Reads what an earlier run stored, ignoring anything malformed (a hand-edited database must not stop the agent). */
function readStored(value: unknown): StoredExposure {
  const stored: StoredExposure = { enabled: {} };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return stored;
  const { ttlMinutes, enabled } = value as { ttlMinutes?: unknown; enabled?: unknown };
  if (typeof ttlMinutes === 'number' && Number.isInteger(ttlMinutes) && ttlMinutes > 0) stored.ttlMinutes = ttlMinutes;
  if (typeof enabled === 'object' && enabled !== null && !Array.isArray(enabled)) {
    for (const [name, expiresAt] of Object.entries(enabled)) {
      if (typeof expiresAt === 'number' && Number.isFinite(expiresAt)) stored.enabled[name] = expiresAt;
    }
  }
  return stored;
}
