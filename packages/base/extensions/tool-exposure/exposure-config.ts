import type { JsonObject, JsonValue } from '@goondan/core';
import { providerToolNamePattern } from '@goondan/core';
import { DEFAULT_REPEAT_LIMIT } from './repeat-guard.ts';

export const MIN_TTL_MINUTES = 1;
export const MAX_TTL_MINUTES = 1440;
export const DEFAULT_TTL_MINUTES = 60;
/** How many on-demand tools `tools__list` names before it says "and N more". */
export const DEFAULT_LIST_LIMIT = 200;

const groupNamePattern = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;
const GROUP_PREFIX = 'group:';

/** The Extension's config, checked and with groups expanded. */
export interface ExposureConfig {
  /** Tool names always exposed, groups in `baseline` expanded (declaration order, no repeats). */
  baseline: readonly string[];
  /** Group name → tool names. */
  groups: ReadonlyMap<string, readonly string[]>;
  /** Groups named in `baseline` (reported by `tools__list`). */
  baselineGroups: readonly string[];
  defaultTtlMinutes: number;
  listLimit: number;
  /** Identical calls (tool and arguments) allowed per turn before the repeat guard answers instead; 0: off. */
  repeatLimit: number;
  /**
   * `on-demand` (default): on-demand tools join the request once enabled. `deferred`: for a model that supports
   * deferred tool loading (anthropic), every tool is in every request, the on-demand ones marked deferred.
   */
  mode: 'on-demand' | 'deferred';
}

function modeOf(value: JsonValue | undefined): ExposureConfig['mode'] {
  if (value === undefined || value === null) return 'on-demand';
  if (value === 'on-demand' || value === 'deferred') return value;
  throw new Error(`config.mode must be 'on-demand' or 'deferred', got ${JSON.stringify(value)}.`);
}

/** `group:files` → `files`; anything else → null. */
export function groupReference(name: string): string | null {
  return name.startsWith(GROUP_PREFIX) ? name.slice(GROUP_PREFIX.length) : null;
}

function isToolName(value: string): boolean {
  return providerToolNamePattern.test(value) && value.includes('__');
}

function stringList(value: JsonValue | undefined, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) {
    throw new Error(`config.${field} must be a list of strings.`);
  }
  return value as string[];
}

function integerIn(value: JsonValue | undefined, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`config.${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`);
  }
  return value;
}

/**
 * Reads and checks the config; a mistake throws (the loader reports it as E_EXTENSION_LOAD naming the extension),
 * so an agent never starts with a baseline that silently exposes nothing.
 * @example parseExposureConfig({ baseline: ['greet__hello', 'group:files'], groups: { files: ['file-system__read'] } })
 */
export function parseExposureConfig(config: Readonly<JsonObject>): ExposureConfig {
  const rawGroups = config.groups ?? {};
  if (typeof rawGroups !== 'object' || rawGroups === null || Array.isArray(rawGroups)) {
    throw new Error('config.groups must map group names to lists of tool names.');
  }
  const groups = new Map<string, readonly string[]>();
  for (const [group, members] of Object.entries(rawGroups)) {
    if (!groupNamePattern.test(group)) {
      throw new Error(`config.groups: '${group}' is not a valid group name (letters, digits, '_' and '-').`);
    }
    const names = stringList(members, `groups.${group}`);
    for (const name of names) {
      if (!isToolName(name))
        throw new Error(`config.groups.${group}: '${name}' is not a tool name (resource__export).`);
    }
    groups.set(group, [...new Set(names)]);
  }
  const baseline = new Set<string>();
  const baselineGroups: string[] = [];
  for (const entry of stringList(config.baseline, 'baseline')) {
    const group = groupReference(entry);
    if (group !== null) {
      const members = groups.get(group);
      if (!members) {
        const known = [...groups.keys()].join(', ') || '(none)';
        throw new Error(`config.baseline: '${entry}' names no group in config.groups (groups: ${known}).`);
      }
      baselineGroups.push(group);
      for (const member of members) baseline.add(member);
    } else if (isToolName(entry)) {
      baseline.add(entry);
    } else {
      throw new Error(`config.baseline: '${entry}' is neither a tool name (resource__export) nor group:NAME.`);
    }
  }
  return {
    baseline: [...baseline],
    groups,
    baselineGroups,
    defaultTtlMinutes: integerIn(
      config.defaultTtlMinutes,
      'defaultTtlMinutes',
      MIN_TTL_MINUTES,
      MAX_TTL_MINUTES,
      DEFAULT_TTL_MINUTES,
    ),
    listLimit: integerIn(config.listLimit, 'listLimit', 1, 10_000, DEFAULT_LIST_LIMIT),
    repeatLimit: integerIn(config.repeatLimit, 'repeatLimit', 0, 100, DEFAULT_REPEAT_LIMIT),
    mode: modeOf(config.mode),
  };
}
