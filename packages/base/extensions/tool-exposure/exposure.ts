import type { ExtensionApi, JsonObject, ToolCatalogItem } from '@goondan/core';
import { closestNames, GoondanError } from '@goondan/core';
import { now } from './clock.ts';
import { exposeCatalog, isControlTool, sameItems } from './expose-catalog.ts';
import { type ExposureConfig, groupReference } from './exposure-config.ts';
import type { ExposureState } from './exposure-state.ts';

/** Names of one enable request sorted by what can be done with them. */
interface Resolved {
  toEnable: string[];
  alwaysExposed: string[];
  /** Group members this agent cannot reach (not registered, or not in its catalog). */
  unavailable: string[];
  unknown: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A one-line description: the first line, cut to `max` characters. */
export function oneLine(text: string | undefined, max = 120): string {
  const line = (text ?? '').trim().split('\n', 1)[0]!.trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * Which tools the model sees, per agent instance: control tools and baseline always, on-demand tools once
 * enabled and until they expire. The "universe" is the catalog the step handed in before filtering (what the
 * agent may reach at all); before the first step it falls back to the whole registry.
 */
export class Exposure {
  private readonly baseline: ReadonlySet<string>;
  private readonly warned = new Set<string>();
  private universe: readonly ToolCatalogItem[] | undefined;
  private universeIndex: { items: readonly ToolCatalogItem[]; byName: Map<string, ToolCatalogItem> } | undefined;
  private cache:
    | { input: readonly ToolCatalogItem[]; version: number; validUntil: number; output: ToolCatalogItem[] }
    | undefined;

  constructor(
    private readonly api: ExtensionApi,
    readonly config: ExposureConfig,
    private readonly state: ExposureState,
    /** Baseline names not to warn about when missing (a pack preset's: an Agent may list only some Tools). */
    private readonly quiet: ReadonlySet<string> = new Set(),
  ) {
    this.baseline = new Set(config.baseline);
  }

  /** The step's catalog, filtered; reuses the previous answer while catalog, state and expiries are unchanged. */
  filter(catalog: readonly ToolCatalogItem[]): ToolCatalogItem[] {
    this.universe = catalog;
    const time = now();
    const active = this.state.active(time);
    const cached = this.cache;
    if (cached && cached.version === this.state.version && time < cached.validUntil && sameItems(cached.input, catalog))
      return [...cached.output];
    const output = exposeCatalog(catalog, this.baseline, active);
    this.warnMissingBaseline(output);
    const validUntil = Math.min(Number.POSITIVE_INFINITY, ...active.values());
    this.cache = { input: catalog, version: this.state.version, validUntil, output };
    return [...output];
  }

  list(): JsonObject {
    const time = now();
    const active = this.state.active(time);
    const control: string[] = [];
    const baseline: JsonObject[] = [];
    const enabled: JsonObject[] = [];
    const onDemand: JsonObject[] = [];
    let onDemandTotal = 0;
    for (const item of exposeCatalog(this.items(), new Set(), new Map())) control.push(item.name);
    for (const item of this.items()) {
      const entry = { name: item.name, description: oneLine(item.description) };
      if (isControlTool(item.name)) continue;
      if (this.baseline.has(item.name)) baseline.push(entry);
      else if (active.has(item.name)) {
        const expiresAt = active.get(item.name)!;
        enabled.push({ ...entry, expiresAt: iso(expiresAt), minutesLeft: Math.ceil((expiresAt - time) / 60_000) });
      } else {
        onDemandTotal += 1;
        if (onDemand.length < this.config.listLimit) onDemand.push(entry);
      }
    }
    const groups = [...this.config.groups].map(([name, tools]) => ({
      name,
      tools: [...tools],
      exposed: this.config.baselineGroups.includes(name)
        ? 'baseline'
        : tools.every((tool) => active.has(tool) || this.baseline.has(tool))
          ? 'enabled'
          : tools.some((tool) => active.has(tool))
            ? 'partly enabled'
            : 'on demand',
    }));
    const more = onDemandTotal - onDemand.length;
    return {
      control,
      baseline,
      groups,
      enabled,
      onDemand,
      onDemandTotal,
      ttlMinutes: this.state.ttlMinutes,
      hint:
        'Call tools__enable with tool or group names to use on-demand tools; they are in your tool list from your next step.' +
        (more > 0
          ? ` ${more} more on-demand tools are not listed here` +
            (control.includes('tools__search') ? '; find them with tools__search.' : '.')
          : ''),
    };
  }

  /**
   * Enables tool and group names. `strict`: any unknown name fails the whole request (E_TOOL_EXPOSURE_UNKNOWN,
   * naming the closest names) and nothing is enabled; otherwise unknown names are reported as unavailable.
   */
  enable(names: readonly string[], options: { strict: boolean }): JsonObject {
    const resolved = this.resolve(names);
    if (options.strict && resolved.unknown.length > 0) throw this.unknownError(resolved.unknown);
    const time = now();
    const outcome = this.state.enable(resolved.toEnable, time);
    const unavailable = [...resolved.unavailable, ...resolved.unknown];
    const sentences: string[] = [];
    const until = `until ${iso(outcome.expiresAt)} (${this.state.ttlMinutes} min)`;
    if (outcome.enabled.length > 0) {
      sentences.push(
        `Enabled ${outcome.enabled.join(', ')} ${until}. They are in your tool list from your next step: call them now.`,
      );
    }
    if (outcome.alreadyEnabled.length > 0) {
      const verb = outcome.alreadyEnabled.length === 1 ? 'is' : 'are';
      sentences.push(`${outcome.alreadyEnabled.join(', ')} ${verb} already enabled (renewed ${until}): call now.`);
    }
    if (resolved.alwaysExposed.length > 0) {
      const verb = resolved.alwaysExposed.length === 1 ? 'is' : 'are';
      sentences.push(`${resolved.alwaysExposed.join(', ')} ${verb} always available: call now.`);
    }
    if (unavailable.length > 0) sentences.push(`Not available to this agent: ${unavailable.join(', ')}.`);
    if (sentences.length === 0) sentences.push('No names given; nothing changed.');
    return {
      enabled: outcome.enabled,
      alreadyEnabled: outcome.alreadyEnabled,
      alwaysExposed: resolved.alwaysExposed,
      ...(unavailable.length > 0 ? { unavailable } : {}),
      expiresAt: iso(outcome.expiresAt),
      ttlMinutes: this.state.ttlMinutes,
      message: sentences.join(' '),
    };
  }

  setTtl(minutes: number): JsonObject {
    const renewed = this.state.setTtl(minutes, now());
    const enabled = [...renewed].map(([name, expiresAt]) => ({ name, expiresAt: iso(expiresAt) }));
    return {
      ttlMinutes: minutes,
      enabled,
      message:
        `Tools enabled from now on stay enabled for ${minutes} min` +
        (enabled.length > 0 ? `; the ${enabled.length} enabled now were renewed to ${minutes} min from now.` : '.'),
    };
  }

  reset(): JsonObject {
    this.state.reset();
    this.cache = undefined;
    const exposed = exposeCatalog(this.items(), this.baseline, new Map()).map((item) => item.name);
    return { exposed, message: `Back to the baseline: ${exposed.length} tools exposed from your next step.` };
  }

  /** Forgets what was enabled (conversation reset). */
  forget(): void {
    this.state.reset();
    this.cache = undefined;
  }

  /** A baseline name with no tool behind it is most likely a typo: say so once (MCP tools may still arrive). */
  private warnMissingBaseline(exposed: readonly ToolCatalogItem[]): void {
    const names = new Set(exposed.map((item) => item.name));
    for (const name of this.baseline) {
      if (names.has(name) || this.warned.has(name) || this.quiet.has(name)) continue;
      this.warned.add(name);
      this.api.logger.warn(`baseline tool '${name}' is not in this agent's catalog (yet); check config.baseline.`);
    }
  }

  private items(): readonly ToolCatalogItem[] {
    return this.universe ?? this.api.tools.list();
  }

  private byName(): Map<string, ToolCatalogItem> {
    const items = this.items();
    if (this.universeIndex?.items !== items) {
      this.universeIndex = { items, byName: new Map(items.map((item) => [item.name, item])) };
    }
    return this.universeIndex.byName;
  }

  private resolve(names: readonly string[]): Resolved {
    const byName = this.byName();
    const resolved: Resolved = { toEnable: [], alwaysExposed: [], unavailable: [], unknown: [] };
    const classify = (name: string, fromGroup: boolean) => {
      if (!byName.has(name)) (fromGroup ? resolved.unavailable : resolved.unknown).push(name);
      else if (isControlTool(name) || this.baseline.has(name)) resolved.alwaysExposed.push(name);
      else resolved.toEnable.push(name);
    };
    for (const raw of new Set(names.map((name) => name.trim()))) {
      const group = groupReference(raw) ?? (this.config.groups.has(raw) ? raw : null);
      const members = group === null ? undefined : this.config.groups.get(group);
      if (group !== null && !members) resolved.unknown.push(raw);
      else if (members) for (const member of members) classify(member, true);
      else classify(raw, false);
    }
    for (const key of ['toEnable', 'alwaysExposed', 'unavailable'] as const)
      resolved[key] = [...new Set(resolved[key])];
    return resolved;
  }

  private unknownError(unknown: readonly string[]): GoondanError {
    const candidates = [...this.byName().keys(), ...this.config.groups.keys()];
    const registered = new Set(this.api.tools.list().map((item) => item.name));
    const parts = unknown.map((name) => {
      if (registered.has(name))
        return `'${name}' is registered but not offered to this agent (not in its tools, or denied by its permissions)`;
      const closest = closestNames(groupReference(name) ?? name, candidates);
      return closest.length > 0 ? `'${name}' (closest: ${closest.join(', ')})` : `'${name}' (no close name)`;
    });
    return new GoondanError(
      'E_TOOL_EXPOSURE_UNKNOWN',
      `Unknown tool or group name: ${parts.join('; ')}. Nothing was enabled.`,
    );
  }
}
