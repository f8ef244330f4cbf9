import { GoondanError } from '@goondan/core/errors';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { describeIssues } from './describe-failure.ts';

/**
 * A tools/call answer as a CallToolResult, or E_MCP_TOOL_ERROR saying in one line what is wrong with it. The answer
 * is requested with a lenient schema and checked here, so that a malformed one fails that call only: the SDK would
 * reject it with a schema error, which reads like a broken connection, and dump every issue as JSON. With
 * `outputCheck` (the tool declares an outputSchema) a result that is not an error must carry structuredContent
 * matching it, as the SDK's own callTool requires.
 */
export function checkCallResult(
  answer: unknown,
  where: { serverName: string; mcpName: string; outputCheck?: JsonSchemaValidator<unknown> },
): CallToolResult {
  const { serverName, mcpName, outputCheck } = where;
  const fail = (problem: string) =>
    new GoondanError('E_MCP_TOOL_ERROR', `MCP server '${serverName}' answered tools/call '${mcpName}' with ${problem}`);
  const parsed = CallToolResultSchema.safeParse(answer);
  if (!parsed.success) throw fail(`a malformed result: ${describeIssues(parsed.error.issues)}`);
  const result = parsed.data as CallToolResult;
  if (!outputCheck || result.isError === true) return result;
  if (result.structuredContent === undefined) {
    throw fail('a result without structuredContent, but the tool declares an outputSchema');
  }
  const checked = outputCheck(result.structuredContent);
  if (!checked.valid) throw fail(`structuredContent that does not match its outputSchema: ${checked.errorMessage}`);
  return result;
}
