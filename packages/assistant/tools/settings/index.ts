/**
 * Settings (docs/assistant.md#self-editing): key/values as labels of the calling Agent, and the MCP servers of its
 * Extension/mcp config. Every change is a bundle changeset. Adding or changing a server registers a command that
 * will run, so those two exports are `restricted` (goondan.yaml). The work is in src/bundle-edit, loaded lazily;
 * secrets are refused here first, since everything these tools write is committed to git.
 */
import type { ToolContext } from '@goondan/core';
import { refuseSecretServer, refuseSecretSetting } from './refuse-secrets.ts';

const edits = async () => (await import('../../src/bundle-edit/settings-edits.ts')).settingsEdits;

// biome-ignore lint/suspicious/noExplicitAny: each handler's input is checked by its parameters schema.
type Input = any;

export const handlers = {
  get: async (ctx: ToolContext, input: Input) => {
    refuseSecretSetting(input.key);
    return (await edits()).get(ctx, input);
  },
  set: async (ctx: ToolContext, input: Input) => {
    refuseSecretSetting(input.key, input.value);
    return (await edits()).set(ctx, input);
  },
  list: async (ctx: ToolContext) => (await edits()).list(ctx),
  mcp_add_server: async (ctx: ToolContext, input: Input) => {
    refuseSecretServer(input);
    return (await edits()).mcpAdd(ctx, input);
  },
  mcp_update_server: async (ctx: ToolContext, input: Input) => {
    refuseSecretServer(input);
    return (await edits()).mcpUpdate(ctx, input);
  },
  mcp_remove_server: async (ctx: ToolContext, input: Input) => (await edits()).mcpRemove(ctx, input),
};
