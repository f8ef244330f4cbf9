import { ErrorCode, type McpError } from '@modelcontextprotocol/sdk/types.js';

/** An Error's message with its code (`ECONNRESET`) and cause, for the messages of E_MCP_UNAVAILABLE and logs. */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) {
    const code = (thrown as { code?: unknown }).code;
    const cause = (thrown as { cause?: unknown }).cause;
    const causeText = cause instanceof Error && cause.message !== thrown.message ? ` (${cause.message})` : '';
    return `${thrown.message}${typeof code === 'string' ? ` (${code})` : ''}${causeText}`;
  }
  return String(thrown);
}

/** `MCP error -32602: Unknown tool` → `Unknown tool (JSON-RPC -32602)`; a closed connection says only why. */
export function stripMcpPrefix(error: McpError): string {
  if (error.code === ErrorCode.ConnectionClosed) return error.message.replace(/^(MCP error -?\d+: )+/, '');
  return `${error.message.replace(/^(MCP error -?\d+: )+/, '')} (JSON-RPC ${error.code})`;
}

/** The last three lines of a server's stderr, on one line. */
export function lastLines(text: string): string {
  return text.split('\n').slice(-3).join(' | ');
}
