/**
 * A stdio MCP server that breaks the rules the SDK's own Server would enforce, written as raw newline-delimited
 * JSON-RPC so it can answer anything. Flags choose its tools/list:
 *
 * - (none): echo, slow, malformed_result, huge, typed (an outputSchema), and tools named like Object.prototype members
 *   (toString, constructor, ...);
 * - `--malformed-tools`: the same plus tools the MCP schema refuses (no inputSchema, inputSchema.type 'string',
 *   required: 'a'), an item that is not a tool at all, two whose inputSchema cannot be compiled (a property of type
 *   'bogus', a $ref to nothing), and a tool whose description alone is 100 000 characters;
 * - `--endless-cursor`: every page has one tool and the same nextCursor, forever;
 * - `--churn`: the good tools plus 2000 more (`many_<i>`, each with a schema of its own), and after every tools/list
 *   answer a `notifications/tools/list_changed`, so a client that re-lists on it lists without end. Its tool
 *   `listings` answers how many tools/list it has answered.
 *
 * tools/call: `echo` answers its text, `slow` answers after `ms` milliseconds, `malformed_result` answers
 * `{ content: 'not-an-array', isError: 'yes' }`, `huge` answers 11 MiB of text, `typed` answers structuredContent, a prototype-named tool answers
 * its own name.
 */
import { createInterface } from 'node:readline';

export const prototypeNames = ['toString', 'valueOf', 'hasOwnProperty', 'constructor', 'isPrototypeOf', '__proto__'];

const empty = { type: 'object', properties: {} };

const goodTools = [
  {
    name: 'echo',
    description: 'Echoes the text back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'slow',
    description: 'Answers after ms milliseconds.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  },
  { name: 'malformed_result', description: 'Answers a result the MCP schema refuses.', inputSchema: empty },
  { name: 'huge', description: 'Answers 11 MiB of text, over the 10 MiB a stdio message may be.', inputSchema: empty },
  {
    name: 'typed',
    description: 'Declares an outputSchema; answers structuredContent { n } matching it, or not when mismatch is set.',
    inputSchema: { type: 'object', properties: { mismatch: { type: 'boolean' } } },
    outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  },
  ...prototypeNames.map((name) => ({ name, description: `Named ${name}.`, inputSchema: empty })),
];

const malformedTools = [
  { name: 'no_schema', description: 'Has no inputSchema.' },
  { name: 'string_schema', description: 'Its inputSchema is a string schema.', inputSchema: { type: 'string' } },
  {
    name: 'bad_required',
    description: 'required is not a list.',
    inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: 'a' },
  },
  'not a tool',
  {
    name: 'bogus_type',
    description: 'A property of a type that does not exist.',
    inputSchema: { type: 'object', properties: { a: { type: 'bogus' } } },
  },
  {
    name: 'broken_ref',
    description: 'A $ref to nothing.',
    inputSchema: { type: 'object', properties: { a: { $ref: '#/definitions/nope' } } },
  },
  { name: 'oversized', description: 'd'.repeat(100_000), inputSchema: empty },
];

function send(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function answer(id: unknown, result: object): void {
  send({ jsonrpc: '2.0', id, result });
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

let listings = 0;
const manyTools = Array.from({ length: 2000 }, (_, index) => ({
  name: `many_${index}`,
  inputSchema: { type: 'object', properties: { [`field_${index}`]: { type: 'string', maxLength: index + 1 } } },
}));

function listTools(id: unknown): void {
  listings += 1;
  if (process.argv.includes('--churn')) {
    answer(id, { tools: [...goodTools, { name: 'listings', inputSchema: empty }, ...manyTools] });
    send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    return;
  }
  if (process.argv.includes('--endless-cursor')) {
    answer(id, { tools: [goodTools[0]], nextCursor: 'same' });
    return;
  }
  answer(id, { tools: [...goodTools, ...(process.argv.includes('--malformed-tools') ? malformedTools : [])] });
}

function callTool(id: unknown, params: { name: string; arguments?: Record<string, unknown> }): void {
  const args = params.arguments ?? {};
  if (params.name === 'echo') answer(id, text(String(args.text)));
  else if (params.name === 'slow') setTimeout(() => answer(id, text(`waited ${args.ms}`)), Number(args.ms));
  else if (params.name === 'malformed_result') answer(id, { content: 'not-an-array', isError: 'yes' });
  else if (params.name === 'huge') answer(id, text('x'.repeat(11 * 1024 * 1024)));
  else if (params.name === 'typed') answer(id, { content: [], structuredContent: { n: args.mismatch ? 'one' : 1 } });
  else if (prototypeNames.includes(params.name)) answer(id, text(`called ${params.name}`));
  else if (params.name === 'listings') answer(id, text(String(listings)));
  else send({ jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool ${params.name}` } });
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const message = JSON.parse(line) as { id?: unknown; method?: string; params?: Record<string, unknown> };
  if (message.id === undefined || message.method === undefined) continue; // notifications, answers
  if (message.method === 'initialize') {
    answer(message.id, {
      protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 'misbehaving', version: '1.0.0' },
    });
  } else if (message.method === 'tools/list') listTools(message.id);
  else if (message.method === 'tools/call') callTool(message.id, message.params as never);
  else if (message.method === 'ping') answer(message.id, {});
  else send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
}
