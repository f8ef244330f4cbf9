import type { JsonObject } from '@goondan/core';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { kindOf } from './kind-of.ts';

/**
 * The params of a tools/call request, or -32602 Invalid params saying in one line what is wrong. The SDK checks them
 * with its schema before our handler runs and answers a mistake with -32603 and the schema's issues as JSON, so
 * create-mcp-server.ts answers tools/call itself and checks them here.
 */
export function readToolCallParams(params: unknown): { name: string; args: JsonObject } {
  const invalid = (problem: string) => new McpError(ErrorCode.InvalidParams, `Invalid params: ${problem}`);
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw invalid(
      `tools/call needs params { name, arguments } (got ${params === undefined ? 'none' : kindOf(params)})`,
    );
  }
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') {
    throw invalid(`params.name must be the tool's name, a string (got ${name === undefined ? 'none' : kindOf(name)})`);
  }
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw invalid(`params.arguments must be an object of the tool's arguments (got ${kindOf(args)})`);
  }
  return { name, args: (args ?? {}) as JsonObject };
}
