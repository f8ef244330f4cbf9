import { buildToolName } from '@goondan/core';

const MAX_TOOL_NAME_LENGTH = 64;

/**
 * The provider-safe name an MCP tool is registered under: `{server}__{tool}`, where in the tool part every
 * character outside [a-zA-Z0-9_-] becomes `_` and runs of `_` collapse to one (so `__` stays the only separator),
 * and the whole name is cut to 64 characters. Two MCP tools may map to the same name (`files.read`, `files_read`);
 * the caller keeps the first and reports the second.
 * @example mcpToolName('files', 'read.file') // 'files__read_file'
 */
export function mcpToolName(serverName: string, mcpName: string): string {
  const part = mcpName.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/_{2,}/g, '_');
  return buildToolName(serverName, part === '' ? '_' : part).slice(0, MAX_TOOL_NAME_LENGTH);
}
