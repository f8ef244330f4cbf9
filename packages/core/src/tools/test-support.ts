import type { Message, ToolCatalogItem, ToolHandler } from '../types.ts';
import type { CallScope } from './call-scope.ts';
import { type ToolRegistrationOptions, ToolRegistry } from './tool-registry.ts';

/** Shared by core's own tests: a scope for a call and a registry filled from a short list. */
export function testScope(overrides: Partial<CallScope> = {}): CallScope {
  const message: Message = {
    id: 'msg_1',
    data: { role: 'assistant', content: [] },
    metadata: {},
    createdAt: new Date(0),
    source: { type: 'assistant' },
  };
  return {
    agentName: 'agent',
    instanceKey: 'default',
    turnId: 'turn_1',
    message,
    workdir: '/tmp',
    logger: console,
    ...overrides,
  };
}

export function registryWith(
  tools: { item: ToolCatalogItem; handler: ToolHandler; options?: ToolRegistrationOptions }[],
): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool.item, tool.handler, tool.options);
  return registry;
}
