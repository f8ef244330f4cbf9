import type { JsonValue, Message, ToolCallMiddleware, ToolCatalogItem } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { exposeCatalog, isControlTool } from './expose-catalog.ts';

/** The same item marked deferred, one copy per item (so the model-tool conversion cache keeps hitting). */
const deferredCopies = new WeakMap<ToolCatalogItem, ToolCatalogItem>();
function deferredCopy(item: ToolCatalogItem): ToolCatalogItem {
  let copy = deferredCopies.get(item);
  if (!copy) {
    copy = { ...item, deferred: true };
    deferredCopies.set(item, copy);
  }
  return copy;
}

/**
 * Mode `deferred`: control tools and baseline first (as in the default mode), then EVERY other tool of the
 * catalog in catalog order, marked deferred. Nothing depends on what is enabled, so the tools array is the same
 * at every step.
 */
export function deferCatalog(catalog: readonly ToolCatalogItem[], baseline: ReadonlySet<string>): ToolCatalogItem[] {
  const front = exposeCatalog(catalog, baseline, new Map());
  const shown = new Set(front.map((item) => item.name));
  const rest: ToolCatalogItem[] = [];
  for (const item of catalog) {
    if (shown.has(item.name)) continue;
    shown.add(item.name);
    rest.push(deferredCopy(item));
  }
  return [...front, ...rest];
}

/** Tool names referenced by provider tool-search results (`{ type: 'tool_reference', toolName }`) in messages. */
export function toolReferences(messages: readonly Message[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    const { content } = message.data;
    if (!Array.isArray(content)) continue;
    for (const part of content as { type?: string; output?: { value?: JsonValue } }[]) {
      const value = part?.type === 'tool-result' ? part.output?.value : undefined;
      if (!Array.isArray(value)) continue;
      for (const entry of value) {
        const reference = entry as { type?: unknown; toolName?: unknown } | null;
        if (reference?.type === 'tool_reference' && typeof reference.toolName === 'string')
          names.add(reference.toolName);
      }
    }
  }
  return names;
}

/**
 * In mode `deferred` every tool is in the request, so the executor's catalog guard lets every call through; this
 * guard keeps the rule of the default mode: an on-demand tool runs only once it is exposed, which here means
 * enabled (tools__enable, tools__search with enable) or loaded by the provider's tool search (a tool reference in
 * the conversation the model reads, or in the message holding the call).
 */
export function deferredGuard(options: {
  active: () => boolean;
  alwaysExposed: (name: string) => boolean;
  enabled: (name: string) => boolean;
  discovered: () => ReadonlySet<string>;
}): ToolCallMiddleware {
  return async function deferredGuardToolCall(ctx) {
    const name = ctx.toolName;
    if (!options.active() || isControlTool(name) || options.alwaysExposed(name) || options.enabled(name))
      return ctx.next();
    if (options.discovered().has(name)) return ctx.next();
    if (ctx.message && toolReferences([ctx.message]).has(name)) return ctx.next();
    throw new GoondanError(
      'E_TOOL_NOT_IN_CATALOG',
      `Tool '${name}' is not loaded: it is an on-demand tool. Find it with the tool search tool (or tools__search), ` +
        'or enable it with tools__enable, then call it.',
    );
  };
}
