/**
 * Self-editing (docs/assistant.md#self-editing): an agent's persona, memory and config live in the bundle
 * (the Agent's spec.prompt.system and labels), so every change goes through a changeset and takes effect between
 * turns. The work is in src/bundle-edit, imported on the first call (it loads the yaml library).
 */
import { type ToolContext, withGuardrail } from '@goondan/core';

const edits = async () => (await import('../../src/bundle-edit/agent-edits.ts')).agentEdits;
const creates = async () => (await import('../../src/bundle-edit/agent-create.ts')).agentCreateEdits;

// biome-ignore lint/suspicious/noExplicitAny: each handler's input is checked by its parameters schema.
type Input = any;

export const handlers = {
  persona_get: async (ctx: ToolContext, input: Input) => (await edits()).personaGet(ctx, input),
  persona_search: async (ctx: ToolContext, input: Input) => (await edits()).personaSearch(ctx, input),
  persona_update: async (ctx: ToolContext, input: Input) => (await edits()).personaUpdate(ctx, input),
  persona_replace: withGuardrail(async (ctx, input: Input) => (await edits()).planPersonaReplace(ctx, input)),
  persona_delete_lines: withGuardrail(async (ctx, input: Input) => (await edits()).planPersonaDeleteLines(ctx, input)),
  memory_get: async (ctx: ToolContext, input: Input) => (await edits()).memoryGet(ctx, input),
  memory_append: async (ctx: ToolContext, input: Input) => (await edits()).memoryAppend(ctx, input),
  memory_replace: async (ctx: ToolContext, input: Input) => (await edits()).memoryReplace(ctx, input),
  memory_update: async (ctx: ToolContext, input: Input) => (await edits()).memoryUpdate(ctx, input),
  config_get: async (ctx: ToolContext, input: Input) => (await edits()).configGet(ctx, input),
  config_update: async (ctx: ToolContext, input: Input) => (await edits()).configUpdate(ctx, input),
  list: async (ctx: ToolContext) => (await edits()).list(ctx),
  create: async (ctx: ToolContext, input: Input) => (await creates()).create(ctx, input),
  set_active: async (ctx: ToolContext, input: Input) => (await creates()).setActive(ctx, input),
};
