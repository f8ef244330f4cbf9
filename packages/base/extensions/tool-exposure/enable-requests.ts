import type { ExtensionApi, JsonObject, ToolCallMiddleware } from '@goondan/core';
import type { Exposure } from './exposure.ts';

/**
 * The key an extension tool puts in its ok output to ask tool-exposure to enable tools (tool-search's
 * `tools__search {enable: true}` does). tool-exposure replaces it with `exposure`: the same report as
 * tools__enable, unknown names listed as unavailable instead of failing the call.
 */
export const ENABLE_REQUEST_KEY = 'enableTools';

function requestedNames(output: unknown): string[] | null {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return null;
  const names = (output as Record<string, unknown>)[ENABLE_REQUEST_KEY];
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) return null;
  return names as string[];
}

/**
 * A toolCall middleware honouring enable requests from tools registered by extensions only: config tools and MCP
 * servers cannot widen what the model sees, only code the bundle author chose to load can.
 */
export function enableRequestsMiddleware(api: ExtensionApi, exposure: Exposure): ToolCallMiddleware {
  return async (ctx) => {
    const result = await ctx.next();
    if (result.status !== 'ok') return result;
    const names = requestedNames(result.output);
    if (names === null) return result;
    const { [ENABLE_REQUEST_KEY]: _request, ...rest } = result.output as JsonObject;
    const source = api.tools.list().find((item) => item.name === ctx.toolName)?.source;
    if (source?.type !== 'extension') return { ...result, output: rest };
    return { ...result, output: { ...rest, exposure: exposure.enable(names, { strict: false }) } };
  };
}
