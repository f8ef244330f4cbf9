import { ErrorCode, type McpError } from '@modelcontextprotocol/sdk/types.js';

/** An Error's message with its code (`ECONNRESET`) and cause, for the messages of E_MCP_UNAVAILABLE and logs. */
export function describeThrown(thrown: unknown): string {
  // An answer the SDK's schema refused: its message is the issues as pretty-printed JSON, many lines long.
  if (isSchemaError(thrown)) return `a malformed answer: ${describeIssues(thrown.issues)}`;
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

/**
 * A failure that means the server's process is gone or going: a write to its closed stdin (EPIPE), a connection the
 * transport closed, or a send after it ended.
 */
export function isBrokenConnection(thrown: unknown): boolean {
  if (thrown instanceof Error && (thrown as { code?: unknown }).code === 'EPIPE') return true;
  if (thrown instanceof Error && thrown.message.startsWith('Not connected')) return true;
  return (thrown as Partial<McpError> | null)?.code === ErrorCode.ConnectionClosed;
}

/** The last three lines of a server's stderr, on one line. */
export function lastLines(text: string): string {
  return text.split('\n').slice(-3).join(' | ');
}

/** One problem a schema found (zod's issue, the fields we read). */
export interface SchemaIssue {
  code?: string;
  path: ReadonlyArray<PropertyKey>;
  message: string;
}

/** The error the SDK rejects a request with when the answer fails its schema (a zod error). */
export function isSchemaError(thrown: unknown): thrown is Error & { issues: SchemaIssue[] } {
  return thrown instanceof Error && Array.isArray((thrown as { issues?: unknown }).issues);
}

const MAX_ISSUES = 3;

/**
 * Schema issues on one line, where and what: `content: expected array, received string; isError: expected boolean,
 * received string`. At most three, then how many more.
 */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  const described = issues.slice(0, MAX_ISSUES).map((issue) => {
    const where = issue.path
      .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
      .join('');
    const what =
      issue.code === 'invalid_union'
        ? 'matches none of the allowed forms'
        : issue.message.replace(/^Invalid input: /, '').replace(/^Invalid input$/, 'not valid');
    return where === '' ? what : `${where}: ${what}`;
  });
  const more = issues.length - MAX_ISSUES;
  return `${described.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}
