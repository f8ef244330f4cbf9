import { GoondanError } from '../errors/goondan-error.ts';
import type {
  AgentPermissionsSpec,
  CallSource,
  PermissionDecision,
  PermissionRules,
  RiskCategory,
} from './permission-types.ts';
import {
  bracesPair,
  DEFAULT_RISK_CATEGORY,
  describeCallSource,
  isToolNameGlob,
  permissionDecisions,
  riskCategories,
} from './permission-types.ts';

/** What an agent without `spec.permissions` does per category (docs/permissions.md). */
export const DEFAULT_CATEGORY_DECISIONS: Readonly<Record<RiskCategory, PermissionDecision>> = {
  safe: 'allow',
  sensitive: 'allow',
  restricted: 'ask',
};

export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;

/** A policy's answer for one call, with the rule that gave it (shown in errors, approvals and the audit log). */
export interface PolicyVerdict {
  decision: PermissionDecision;
  rule: string;
}

const strictness: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

interface CompiledRules {
  label: string;
  categories: Partial<Record<RiskCategory, PermissionDecision>>;
  exact: Map<string, PermissionDecision>;
  /** Most specific first (longest literal text). */
  globs: { pattern: string; test: { test(name: string): boolean }; decision: PermissionDecision }[];
}

/**
 * An agent's permissions (issue: permissions and approvals): a decision per risk category and per tool name, for
 * the agent and per source of the turn. Within one level the most specific rule wins (exact tool name, then the
 * longest glob, then the category); the agent level falls back to the defaults. Source levels can only tighten:
 * the answer is the strictest of the agent's and every matching source's (`kind`, then `kind:name`).
 */
export class PermissionPolicy {
  readonly approvalTimeoutMs: number;
  private readonly agent: CompiledRules;
  private readonly sources: Map<string, CompiledRules>;
  private readonly direct: CompiledRules | null;
  private readonly cache = new Map<string, Map<string, PolicyVerdict>>();
  private readonly noSourceCache = new Map<string, PolicyVerdict>();
  private readonly sourceObjects = new WeakMap<
    CallSource,
    { kind: string; name: string; origin: string | null; cache: Map<string, PolicyVerdict> }
  >();

  /**
   * @throws GoondanError E_RESOURCE_INVALID when the spec is not one `gdn validate` accepts (a program that built
   *   it in code, or changed a loaded one): a misspelt decision or field would otherwise decide nothing, or allow.
   */
  constructor(spec: AgentPermissionsSpec = {}, options: { allowAllRegistryDirectCalls?: boolean } = {}) {
    const wrong = wrongPermissionsSpec(spec);
    if (wrong) throw new GoondanError('E_RESOURCE_INVALID', `Agent spec.permissions${wrong}.`);
    this.agent = compile(spec, 'agent');
    this.sources = new Map(
      Object.entries(spec.sources ?? {}).map(([key, rules]) => [key, compile(rules, `sources.${key}`)]),
    );
    const directNames = [...(spec.registryDirectCalls ?? []), ...(options.allowAllRegistryDirectCalls ? ['*'] : [])];
    this.direct =
      directNames.length === 0
        ? null
        : compile({ tools: Object.fromEntries(directNames.map((name) => [name, 'allow' as const])) }, 'direct');
    this.approvalTimeoutMs = (spec.approvalTimeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS) * 1000;
  }

  /** The decision for a call of `toolName` (of `category`) in a turn from `source`. Cached per source and tool. */
  decide(toolName: string, category: RiskCategory, source?: CallSource | null): PolicyVerdict {
    // Two levels, so a call builds no key string: the source's map (found by object, else by name), then the tool.
    const cache = this.cacheFor(source);
    const key = category === DEFAULT_RISK_CATEGORY ? toolName : `${toolName}\u0000${category}`;
    const cached = cache.get(key);
    if (cached) return cached;
    let verdict = lookup(this.agent, toolName, category) ?? {
      decision: DEFAULT_CATEGORY_DECISIONS[category],
      rule: `default ${category}: ${DEFAULT_CATEGORY_DECISIONS[category]}`,
    };
    // The turn's own source, then the source that started its chain of requests (it only tightens too).
    for (const from of source ? (source.origin ? [source, source.origin] : [source]) : []) {
      for (const key of [from.kind, `${from.kind}:${from.name}`]) {
        const rules = this.sources.get(key);
        const tighter = rules ? lookup(rules, toolName, category) : undefined;
        if (tighter && strictness[tighter.decision] > strictness[verdict.decision]) verdict = tighter;
      }
    }
    if (cache.size > 100_000) cache.clear();
    cache.set(key, verdict);
    return verdict;
  }

  private cacheFor(source: CallSource | null | undefined): Map<string, PolicyVerdict> {
    if (!source) return this.noSourceCache;
    const known = this.sourceObjects.get(source);
    const origin = source.origin ? `${source.origin.kind}:${source.origin.name}` : null;
    // Same object, same kind, name and origin: a source is not edited, but a reused object must still be checked.
    if (known && known.kind === source.kind && known.name === source.name && known.origin === origin)
      return known.cache;
    const name = describeCallSource(source);
    let cache = this.cache.get(name);
    if (!cache) {
      if (this.cache.size > 1_000) this.cache.clear();
      cache = new Map();
      this.cache.set(name, cache);
    }
    this.sourceObjects.set(source, { kind: source.kind, name: source.name, origin, cache });
    return cache;
  }

  /** True when a policy names `toolName` for registry direct calls (spec §2.3.3, §9.1: only by explicit policy). */
  allowsDirectCall(toolName: string): boolean {
    return this.direct !== null && lookup(this.direct, toolName, null) !== undefined;
  }
}

const ruleFields = [...riskCategories, 'tools'];
const specFields = [...ruleFields, 'sources', 'approvalTimeoutSeconds', 'registryDirectCalls'];
/** The characters of tool names, and of globs over them (as the resource schema has it). */
const toolPattern = /^[a-zA-Z0-9_*?{},-]{1,128}$/;
const sourceKey = /^[a-zA-Z0-9_.-]+(:[a-zA-Z0-9_./-]+)?$/;

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return value === null || typeof value === 'object' ? String(value) : JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with a tool name or glob of a rule (the path after `spec.permissions`), or null. */
function wrongToolPattern(pattern: unknown, at: string): string | null {
  if (typeof pattern !== 'string' || !toolPattern.test(pattern))
    return `${at} ${describe(pattern).slice(0, 140)} is not a tool name or glob (letters, digits, _, -, *, ?, {a,b})`;
  return bracesPair(pattern)
    ? null
    : `${at} "${pattern}" has a '{' without its '}' (or the reverse), so it matches no tool`;
}

function wrongRules(rules: unknown, at: string, fields: readonly string[]): string | null {
  if (!isRecord(rules)) return `${at} must be an object (got ${describe(rules)})`;
  for (const [key, value] of Object.entries(rules)) {
    if (!fields.includes(key)) return `${at} has an unknown field "${key.slice(0, 64)}" (fields: ${fields.join(', ')})`;
    if ((riskCategories as readonly string[]).includes(key) && !permissionDecisions.includes(value as never))
      return `${at}.${key} must be allow, ask or deny (got ${describe(value).slice(0, 64)})`;
    if (key !== 'tools') continue;
    if (!isRecord(value)) return `${at}.tools must be an object (got ${describe(value)})`;
    for (const [pattern, decision] of Object.entries(value)) {
      const wrong = wrongToolPattern(pattern, `${at}.tools:`);
      if (wrong) return wrong;
      if (!permissionDecisions.includes(decision as never))
        return `${at}.tools.${pattern} must be allow, ask or deny (got ${describe(decision).slice(0, 64)})`;
    }
  }
  return null;
}

/**
 * What is wrong with `spec.permissions` (a path and why, after `spec.permissions`), or null: the checks of the
 * resource schema, so that a spec that did not come through `gdn validate` is refused rather than read leniently,
 * plus braces that do not pair in a glob.
 */
export function wrongPermissionsSpec(spec: unknown): string | null {
  if (spec === undefined) return null;
  const wrong = wrongRules(spec, '', specFields);
  if (wrong) return wrong;
  const { sources, approvalTimeoutSeconds, registryDirectCalls } = spec as Record<string, unknown>;
  if (sources !== undefined) {
    if (!isRecord(sources)) return `.sources must be an object (got ${describe(sources)})`;
    for (const [key, rules] of Object.entries(sources)) {
      if (!sourceKey.test(key)) return `.sources has the key "${key.slice(0, 64)}", which is not a kind or kind:name`;
      const wrongSource = wrongRules(rules, `.sources.${key}`, ruleFields);
      if (wrongSource) return wrongSource;
    }
  }
  if (
    approvalTimeoutSeconds !== undefined &&
    !(
      Number.isInteger(approvalTimeoutSeconds) &&
      (approvalTimeoutSeconds as number) >= 1 &&
      (approvalTimeoutSeconds as number) <= 604_800
    )
  )
    return `.approvalTimeoutSeconds must be an integer from 1 to 604800 (got ${describe(approvalTimeoutSeconds).slice(0, 64)})`;
  if (registryDirectCalls !== undefined) {
    if (!Array.isArray(registryDirectCalls))
      return `.registryDirectCalls must be a list (got ${describe(registryDirectCalls)})`;
    for (const [index, pattern] of registryDirectCalls.entries()) {
      const wrongPattern = wrongToolPattern(pattern, `.registryDirectCalls[${index}]`);
      if (wrongPattern) return wrongPattern;
    }
  }
  return null;
}

/** A tool-name pattern as a glob (Bun.Glob): `*` any run of characters, `?` one, `{a,b}` either. */
export function toolNameGlob(pattern: string): { test(name: string): boolean } {
  const glob = new Bun.Glob(pattern);
  return { test: (name) => glob.match(name) };
}

/** How much of a pattern is literal: the more specific glob is tried first. */
function literalLength(pattern: string): number {
  return pattern.replace(/[*?]|\{[^}]*\}|\[[^\]]*\]/g, '').length;
}

function compile(rules: PermissionRules, label: string): CompiledRules {
  const exact = new Map<string, PermissionDecision>();
  const globs: CompiledRules['globs'] = [];
  for (const [pattern, decision] of Object.entries(rules.tools ?? {})) {
    if (isToolNameGlob(pattern)) globs.push({ pattern, test: toolNameGlob(pattern), decision });
    else exact.set(pattern, decision);
  }
  globs.sort((left, right) => literalLength(right.pattern) - literalLength(left.pattern));
  const categories: CompiledRules['categories'] = {};
  for (const category of ['safe', 'sensitive', 'restricted'] as const) {
    if (rules[category] !== undefined) categories[category] = rules[category];
  }
  return { label, categories, exact, globs };
}

function lookup(rules: CompiledRules, toolName: string, category: RiskCategory | null): PolicyVerdict | undefined {
  const prefix = rules.label === 'agent' ? '' : `${rules.label}.`;
  const exact = rules.exact.get(toolName);
  if (exact) return { decision: exact, rule: `${prefix}tools.${toolName}: ${exact}` };
  for (const glob of rules.globs) {
    if (glob.test.test(toolName))
      return { decision: glob.decision, rule: `${prefix}tools."${glob.pattern}": ${glob.decision}` };
  }
  const byCategory = category ? rules.categories[category] : undefined;
  if (byCategory) return { decision: byCategory, rule: `${prefix}${category}: ${byCategory}` };
  return undefined;
}
