import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ToolRequirements } from '../config/resources.ts';

/**
 * Whether a Tool's backend is present on this machine (docs/resources.md#requires): decided from the declaration
 * alone (no import of the tool module), when the registry is built. Commands are looked up on PATH once per
 * process (per PATH value); environment variables and bus sockets are read each time (cheap).
 */
export type ToolAvailability = { available: true } | { available: false; reason: string; install?: string };

const AVAILABLE: ToolAvailability = { available: true };

/** Every value `process.platform` can take: the names `requires.platforms` accepts. */
export const knownPlatforms = [
  'aix',
  'android',
  'darwin',
  'freebsd',
  'haiku',
  'linux',
  'netbsd',
  'openbsd',
  'sunos',
  'win32',
  'cygwin',
] as const;

export interface AvailabilityContext {
  platform: string;
  env: Record<string, string | undefined>;
  /** The Tool's effective config (spec.config with the Agent's per-tool config over it). */
  config: Record<string, unknown>;
}

const commandCache = new Map<string, string | null>();

/** Forget the PATH look-ups (tests that change PATH or install a fake command mid-process). */
export function clearAvailabilityCache(): void {
  commandCache.clear();
}

/** The absolute file of `command` on `path` (the PATH value), or null. Cached per process. */
export function findCommand(command: string, path: string | undefined = process.env.PATH): string | null {
  const key = `${command}\0${path ?? ''}`;
  const cached = commandCache.get(key);
  if (cached !== undefined) return cached;
  let found: string | null = null;
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, command);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      found = file;
      break;
    } catch {
      // Not here.
    }
  }
  commandCache.set(key, found);
  return found;
}

/** The first command of `alternatives` ("xsel|wl-copy") found on PATH, or null. */
export function firstCommand(alternatives: string, path: string | undefined = process.env.PATH): string | null {
  for (const command of alternatives.split('|')) {
    if (findCommand(command, path)) return command;
  }
  return null;
}

/**
 * Checks `requires` (the Tool's, then the export's: both must hold). Returns the first unmet need in words a person
 * can act on, with the declaration's install hint.
 */
export function checkAvailability(
  requirements: readonly (ToolRequirements | undefined)[],
  context: AvailabilityContext = {
    platform: process.platform,
    env: process.env,
    config: {},
  },
): ToolAvailability {
  for (const requires of requirements) {
    if (!requires) continue;
    const result = checkSet(requires, context);
    if (!result.available) return result;
  }
  return AVAILABLE;
}

function checkSet(requires: ToolRequirements, context: AvailabilityContext): ToolAvailability {
  const own = checkOwn(requires, context);
  if (!own.available) return own;
  if (!requires.anyOf || requires.anyOf.length === 0) return AVAILABLE;
  const failures: ToolAvailability[] = [];
  for (const branch of requires.anyOf) {
    const result = checkOwn(branch, context);
    if (result.available) return AVAILABLE;
    failures.push(result);
  }
  // Prefer the branch written for this platform: its unmet need is the one to fix here.
  const onPlatform = requires.anyOf.findIndex(
    (branch) => !branch.platforms || branch.platforms.includes(context.platform),
  );
  if (onPlatform >= 0) return failures[onPlatform]!;
  const platforms = [...new Set(requires.anyOf.flatMap((branch) => branch.platforms ?? []))];
  return { available: false, reason: `not available on ${context.platform} (only ${platforms.join(', ')})` };
}

function unavailable(reason: string, requires: ToolRequirements): ToolAvailability {
  return requires.install ? { available: false, reason, install: requires.install } : { available: false, reason };
}

function checkOwn(requires: ToolRequirements, context: AvailabilityContext): ToolAvailability {
  if (requires.platforms && !requires.platforms.includes(context.platform)) {
    return unavailable(`not available on ${context.platform} (only ${requires.platforms.join(', ')})`, requires);
  }
  for (const names of requires.env ?? []) {
    if (!names.split('|').some((name) => (context.env[name] ?? '') !== '')) {
      return unavailable(`needs the environment variable ${describeAlternatives(names)} (not set)`, requires);
    }
  }
  for (const commands of requires.commands ?? []) {
    if (firstCommand(commands, context.env.PATH) === null) {
      return unavailable(`needs the command ${describeAlternatives(commands)} on PATH (not found)`, requires);
    }
  }
  if (requires.dbus && !busReachable(requires.dbus, context.env)) {
    return unavailable(
      requires.dbus === 'session'
        ? 'needs a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist)'
        : 'needs the D-Bus system bus (its socket does not exist)',
      requires,
    );
  }
  for (const keys of requires.config ?? []) {
    if (!keys.split('|').some((key) => isSet(context.config[key]))) {
      return unavailable(`needs spec.config.${describeAlternatives(keys, ' or spec.config.')} (not set)`, requires);
    }
  }
  return AVAILABLE;
}

function describeAlternatives(alternatives: string, joiner = ' or '): string {
  return alternatives.split('|').join(joiner);
}

function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/** A bus is reachable when its address names a socket file that exists (abstract sockets cannot be checked). */
function busReachable(bus: 'session' | 'system', env: Record<string, string | undefined>): boolean {
  const address = bus === 'session' ? env.DBUS_SESSION_BUS_ADDRESS : env.DBUS_SYSTEM_BUS_ADDRESS;
  if (address) {
    const path = /(?:^|[;,])unix:(?:[^;]*,)?path=([^,;]+)/.exec(address)?.[1];
    return path === undefined || exists(decodeURIComponent(path));
  }
  if (bus === 'system') return exists('/run/dbus/system_bus_socket') || exists('/var/run/dbus/system_bus_socket');
  return env.XDG_RUNTIME_DIR ? exists(join(env.XDG_RUNTIME_DIR, 'bus')) : false;
}

function exists(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false }) !== undefined;
}
