import { randomUUID } from 'node:crypto';
import type { JsonObject, ToolCall, ToolCatalogItem, ToolResult } from '@goondan/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { canElicitForm, elicitApproval } from './elicit-approval.ts';
import type { Served } from './open-served.ts';
import { toolAnnotations } from './tool-annotations.ts';

/** An MCP Server whose tools are the catalog; one per client connection (stdio) or HTTP session. */
export function createMcpServer(served: Served, logger: Console): Server {
  const server = new Server({ name: 'goondan', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await served.catalog()).items.map((item) => toMcpTool(item, served)),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const call: ToolCall = {
      id: `call_mcp_${randomUUID()}`,
      name: request.params.name,
      args: (request.params.arguments ?? {}) as JsonObject,
    };
    // Sent with the call's own request id, so over HTTP the question travels on the stream of this call.
    const askApproval = canElicitForm(server.getClientCapabilities())
      ? elicitApproval({
          sendRequest: (elicit, schema, options) => extra.sendRequest(elicit, schema, options),
          clientName: server.getClientVersion()?.name ?? 'unknown',
          logger,
        })
      : undefined;
    return toCallToolResult(await served.call(call, { signal: extra.signal, askApproval }));
  });
  return server;
}

/** The catalog item as an MCP tool: parameters exactly as declared, annotations from its category. */
function toMcpTool(item: ToolCatalogItem, served: Served): Tool {
  const category = served.categoryOf(item.name);
  return {
    name: item.name,
    ...(item.description === undefined ? {} : { description: item.description }),
    inputSchema: (item.parameters ?? { type: 'object' }) as Tool['inputSchema'],
    ...(category === null ? {} : { annotations: toolAnnotations(item.name, category) }),
  };
}

/** Our ToolResult as an MCP tools/call result (errors are results with isError, never protocol errors). */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (result.status === 'error') {
    const error = result.error ?? { message: 'unknown error' };
    const lines = [`${error.code ?? 'E_TOOL'}: ${error.message}`];
    if (error.suggestion) lines.push(`suggestion: ${error.suggestion}`);
    if (error.helpUrl) lines.push(`help: ${error.helpUrl}`);
    return { isError: true, content: [{ type: 'text', text: lines.join('\n') }] };
  }
  if (result.status === 'pending') {
    return {
      content: [{ type: 'text', text: `pending: the tool goes on as job ${result.handle}` }],
      structuredContent: { status: 'pending', handle: result.handle ?? null },
    };
  }
  const output = result.output ?? null;
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  const isObject = typeof output === 'object' && output !== null && !Array.isArray(output);
  return { content: [{ type: 'text', text }], ...(isObject ? { structuredContent: output } : {}) };
}
