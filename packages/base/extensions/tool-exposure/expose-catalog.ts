import type { ToolCatalogItem } from '@goondan/core';

/** The registry-control tools, in the order they lead every exposed catalog. */
export const CONTROL_TOOL_NAMES = ['tools__list', 'tools__enable', 'tools__enable_ttl', 'tools__reset'] as const;

/** Every tool of the `tools` resource is a registry-control tool (tools__search too) and is always exposed. */
export function isControlTool(name: string): boolean {
  return name.startsWith('tools__');
}

function controlRank(name: string): number {
  const index = (CONTROL_TOOL_NAMES as readonly string[]).indexOf(name);
  return index < 0 ? CONTROL_TOOL_NAMES.length : index;
}

/**
 * What the model sees this step: control tools first (the four in fixed order, then other `tools__*` in catalog
 * order), then baseline tools in catalog order, then enabled tools in catalog order. The order depends only on
 * the catalog and the sets, never on when something was enabled, so the prefix stays stable for prompt caches.
 * Tools in neither set are left out; the executor's guard then refuses calls to them (E_TOOL_NOT_IN_CATALOG).
 */
export function exposeCatalog(
  catalog: readonly ToolCatalogItem[],
  baseline: ReadonlySet<string>,
  enabled: ReadonlyMap<string, unknown>,
): ToolCatalogItem[] {
  const control: ToolCatalogItem[] = [];
  const base: ToolCatalogItem[] = [];
  const onDemand: ToolCatalogItem[] = [];
  const seen = new Set<string>();
  for (const item of catalog) {
    const { name } = item;
    const bucket = isControlTool(name) ? control : baseline.has(name) ? base : enabled.has(name) ? onDemand : undefined;
    if (!bucket || seen.has(name)) continue;
    seen.add(name);
    bucket.push(item);
  }
  if (control.length > 1) control.sort((a, b) => controlRank(a.name) - controlRank(b.name));
  return [...control, ...base, ...onDemand];
}

/** True when both arrays hold the same item objects in the same order (cheap: no string work). */
export function sameItems(left: readonly ToolCatalogItem[], right: readonly ToolCatalogItem[]): boolean {
  if (left === right) return true;
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}
