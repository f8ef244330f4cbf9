import type { JsonSchemaObject } from '@goondan/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema, type Tool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describeIssues, describeThrown } from './describe-failure.ts';

export const MAX_LIST_PAGES = 100;

/**
 * The most characters a tool's description and inputSchema may take as JSON. Both are sent to the model at every
 * step: one server's tool of megabytes would make every step of the agent fail (or cost a fortune), not only its calls.
 */
export const MAX_TOOL_DEFINITION_CHARS = 100_000;

/** What one listing of a server's tools found: the usable tools, and what was wrong with the others. */
export interface McpToolList {
  tools: Tool[];
  /** Tools left out because their definition is malformed: `'name'`, or `#n` (position in the list) without one. */
  malformed: Array<{ tool: string; problem: string }>;
  /** Names listed more than once (the first definition is used). */
  repeated: string[];
  /** Tools left out because their description and inputSchema are over MAX_TOOL_DEFINITION_CHARS of JSON. */
  oversized: Array<{ tool: string; chars: number }>;
  /** Set when the list went on past MAX_LIST_PAGES: the nextCursor it was cut at. */
  cutAtCursor?: string;
  /** Checks of structuredContent against each tool's outputSchema (tools without one have none). */
  outputChecks: Map<string, JsonSchemaValidator<unknown>>;
}

/** Compiled schemas by their JSON text: a validator, or the message of why the schema does not compile. */
export type CompiledSchemas = Map<string, { check: JsonSchemaValidator<unknown> } | { problem: string }>;

/** How long compiling may hold the event loop before the listing lets other work (calls, timers) run. */
const COMPILE_SLICE_MS = 20;

/**
 * Every page of tools/list (at most MAX_LIST_PAGES), each tool checked on its own. The SDK's `listTools` validates
 * the whole answer, so one malformed tool would fail the listing of them all, and its error is a many-line dump of
 * schema issues: here each page is read as it comes and each tool checked against the MCP Tool schema (and its
 * inputSchema compiled: the model is sent it at every step, and a provider refuses a request with a broken one), so a
 * malformed tool is left out (and said why, in one line) while the others are used. A page that is not a tool
 * list at all still fails the listing. The SDK would also check results against each `outputSchema` (it keeps the
 * validators from its own listTools), so the checks are compiled here instead.
 */
export async function listMcpTools(
  client: Client,
  options: { timeoutMs: number; compiled?: CompiledSchemas },
): Promise<McpToolList> {
  const list: McpToolList = {
    tools: [],
    malformed: [],
    repeated: [],
    oversized: [],
    outputChecks: new Map(),
  };
  const validator = new AjvJsonSchemaValidator();
  const cache: CompiledSchemas = options.compiled ?? new Map();
  const used = new Set<string>();
  let sliceStart = performance.now();
  // Compiling a schema takes about 0.25 ms: a server of 10 000 tools that sends tools/list_changed again and again
  // had every listing compile them all anew, holding the event loop ~2 s each time (every call of the agent waited).
  // Schemas the last listing compiled are reused from `compiled` (the connection's), which keeps only the schemas of
  // the latest listing (one listing's size), and a long run of compiles lets other work run every COMPILE_SLICE_MS.
  const compile = async (schema: unknown) => {
    const key = JSON.stringify(schema);
    used.add(key);
    let entry = cache.get(key);
    if (entry === undefined) {
      if (performance.now() - sliceStart > COMPILE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      try {
        entry = { check: validator.getValidator(schema as never) };
      } catch (thrown) {
        entry = { problem: describeThrown(thrown) };
      }
      cache.set(key, entry);
    }
    return entry;
  };
  const seen = new Set<string>();
  let position = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const answer = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ResultSchema,
      { timeout: options.timeoutMs },
    );
    const { tools, nextCursor } = answer as { tools?: unknown; nextCursor?: unknown };
    if (!Array.isArray(tools)) throw new Error(`its tools/list answer has no tools list (tools: ${typeOf(tools)})`);
    for (const item of tools) {
      position += 1;
      const checked = ToolSchema.safeParse(item);
      const named = (item as { name?: unknown })?.name;
      const label = typeof named === 'string' ? `'${named}'` : `#${position}`;
      if (!checked.success) {
        list.malformed.push({ tool: label, problem: describeIssues(checked.error.issues) });
        continue;
      }
      const tool = checked.data as Tool;
      if (seen.has(tool.name)) {
        list.repeated.push(tool.name);
        continue;
      }
      const chars = JSON.stringify([tool.description ?? '', tool.inputSchema]).length;
      if (chars > MAX_TOOL_DEFINITION_CHARS) {
        list.oversized.push({ tool: label, chars });
        continue;
      }
      // Sent to the model at every step: a schema that is not one (type: "bogus", a broken pattern or $ref) would
      // have a provider refuse every request of the agent, not only this tool's calls.
      const input = await compile(toParameters(tool.inputSchema));
      if ('problem' in input) {
        list.malformed.push({ tool: label, problem: `inputSchema cannot be compiled: ${input.problem}` });
        continue;
      }
      if (tool.outputSchema) {
        const output = await compile(tool.outputSchema);
        if ('problem' in output) {
          list.malformed.push({ tool: label, problem: `outputSchema cannot be compiled: ${output.problem}` });
          continue;
        }
        list.outputChecks.set(tool.name, output.check);
      }
      seen.add(tool.name);
      list.tools.push(tool);
    }
    if (nextCursor !== undefined && typeof nextCursor !== 'string') {
      throw new Error(`its tools/list answer has a nextCursor that is not a string (${typeOf(nextCursor)})`);
    }
    cursor = nextCursor;
    if (cursor === undefined) return forgetUnused(list, cache, used);
  }
  list.cutAtCursor = cursor;
  return forgetUnused(list, cache, used);
}

/** Drops from the cache the schemas this listing did not have, so it never holds more than one listing's. */
function forgetUnused(list: McpToolList, cache: CompiledSchemas, used: ReadonlySet<string>): McpToolList {
  for (const key of cache.keys()) if (!used.has(key)) cache.delete(key);
  return list;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'undefined' ? 'missing' : `a ${typeof value}`;
}

/**
 * The input schema as our parameters, unchanged except for one thing: a `$schema` naming draft 2019-09 or 2020-12
 * is left out. 2020-12 is MCP's default dialect, so leaving it out keeps the meaning, and the runtime validator
 * (draft-07 Ajv) refuses to compile a schema declaring a dialect it does not know.
 */
export function toParameters(schema: Tool['inputSchema']): JsonSchemaObject {
  const { $schema, ...rest } = schema;
  if (typeof $schema === 'string' && /json-schema\.org\/draft\/(2019-09|2020-12)\/schema/.test($schema)) {
    return rest as JsonSchemaObject;
  }
  return schema as JsonSchemaObject;
}
