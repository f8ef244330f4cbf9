import { randomUUID } from 'node:crypto';
import { type ToolCall, type ToolCatalogItem, type ToolResult, toToolError } from '@goondan/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { canElicitForm, elicitApproval, tellWaitingApproval } from './elicit-approval.ts';
import type { Served } from './open-served.ts';
import { toolAnnotations } from './tool-annotations.ts';
import { readToolCallParams } from './tool-call-params.ts';

/**
 * The SDK's Server, but a task-augmented request (`params.task`, MCP 2025-11-25) is run as a plain one. We declare no
 * `tasks` capability, and the spec says a receiver that does not "MUST process requests of that type normally,
 * ignoring any task-augmentation metadata"; the SDK answered them -32603 "does not support task creation".
 */
class UntaskedServer extends Server {
  protected override assertTaskHandlerCapability(): void {}
}

/** An MCP Server whose tools are the catalog; one per client connection (stdio) or HTTP session. */
export function createMcpServer(served: Served, logger: Console): Server {
  const server = new UntaskedServer({ name: 'goondan', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.onerror = (error) => logger.error(`gdn mcp serve: ${error.message}`);
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    // Every tool is in one page, and no nextCursor is ever given: a cursor can only be made up. The spec: "Invalid
    // cursors SHOULD result in an error with code -32602" (answering the whole list again would pass for a page 2).
    if (request.params?.cursor !== undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        'Invalid params: cursor: this server lists every tool in one page and gives no nextCursor; list without one',
      );
    }
    return { tools: (await served.catalog()).items.map((item) => toMcpTool(item, served)) };
  });
  // tools/call is answered here rather than with setRequestHandler: the SDK would check its params with its
  // schema first and answer a mistake with -32603 and the issues as JSON; readToolCallParams answers -32602.
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
    const { name, args } = readToolCallParams(request.params);
    const call: ToolCall = { id: `call_mcp_${randomUUID()}`, name, args };
    // Sent with the call's own request id, so over HTTP the question travels on the stream of this call.
    const progressToken = extra._meta?.progressToken;
    const askApproval = canElicitForm(server.getClientCapabilities())
      ? elicitApproval({
          sendRequest: (elicit, schema, options) => extra.sendRequest(elicit, schema, options),
          clientName: server.getClientVersion()?.name ?? 'unknown',
          logger,
        })
      : progressToken === undefined
        ? undefined
        : tellWaitingApproval({
            notify: (message) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken, progress: 0, message },
              }),
            logger,
          });
    try {
      return toCallToolResult(await served.call(call, { signal: extra.signal, askApproval }));
    } catch (thrown) {
      // Before the pipeline (a step middleware failed while the catalog was made): still this call's result.
      return toCallToolResult({ status: 'error', error: toToolError(thrown) });
    }
  };
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
