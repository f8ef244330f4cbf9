import type { RiskCategory } from '@goondan/core';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the risk category says about a tool, as MCP ToolAnnotations (hints a client may use to decide what to
 * confirm): `safe` tools only read; `sensitive` ones change things but are not destructive; `restricted` ones may
 * destroy. `idempotentHint` is never set: nothing we declare says so.
 */
const byCategory: Record<RiskCategory, ToolAnnotations> = {
  safe: { readOnlyHint: true },
  sensitive: { readOnlyHint: false, destructiveHint: false },
  restricted: { readOnlyHint: false, destructiveHint: true },
};

/**
 * What is known of the base tools beyond their category: writing over a file or deleting it destroys what was
 * there; bash and http-fetch reach outside the machine's files (the network, any program). Keyed by catalog name
 * or by `resource__*` for every export of a base Tool.
 */
const known: Record<string, ToolAnnotations> = {
  'file-system__write': { destructiveHint: true },
  'file-system__replace': { destructiveHint: true },
  'file-system__delete': { destructiveHint: true },
  'bash__*': { openWorldHint: true },
  'http-fetch__*': { openWorldHint: true },
};

/** The annotations of one served tool (its category after the agent's permission rules, and its name). */
export function toolAnnotations(toolName: string, category: RiskCategory): ToolAnnotations {
  const resource = toolName.split('__')[0];
  const extra = known[toolName] ?? known[`${resource}__*`] ?? {};
  const merged = { ...byCategory[category], ...extra };
  // A read-only tool is never destructive; the hint only means something when readOnlyHint is false.
  if (merged.readOnlyHint === true) delete merged.destructiveHint;
  return merged;
}
