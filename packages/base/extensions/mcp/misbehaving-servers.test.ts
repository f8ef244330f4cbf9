import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { JsonObject } from '@goondan/core';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { type Bridge, bridgesClosedAfterEach } from './__fixtures__/harness.ts';
import { prototypeNames } from './__fixtures__/misbehaving-server.ts';
import { mcpToolName } from './tool-names.ts';

const misbehavingServer = join(import.meta.dir, '__fixtures__', 'misbehaving-server.ts');

/** The misbehaving fixture as server `odd`, run by the current Bun with `flags`. */
function odd(flags: string[] = [], extra: JsonObject = {}): JsonObject {
  return { name: 'odd', command: process.execPath, args: [misbehavingServer, ...flags], ...extra };
}

const bridge = bridgesClosedAfterEach();

const linesOf = (b: Bridge, level: string) => b.logs.filter((line) => line.level === level).map((line) => line.text);

describe('mcp extension: servers that break the rules', () => {
  test('tools named like Object.prototype members are registered, called, and take their toolCategories', async () => {
    const b = await bridge({
      servers: [odd([], { category: 'safe', toolCategories: { toString: 'sensitive', constructor: 'sensitive' } })],
    });
    expect(linesOf(b, 'error')).toEqual([]);
    for (const name of prototypeNames) {
      const registered = mcpToolName('odd', name);
      expect(b.registry.has(registered)).toBe(true);
      expect(await b.call(registered)).toEqual({ status: 'ok', output: `called ${name}` });
    }
    expect(b.registry.get('odd__toString')?.category).toBe('sensitive');
    expect(b.registry.get('odd__constructor')?.category).toBe('sensitive');
    expect(b.registry.get('odd__valueOf')?.category).toBe('safe');
    expect(b.registry.get(mcpToolName('odd', '__proto__'))?.category).toBe('safe');
  });

  test('a malformed tools/call result fails that call only; calls in flight finish and the process stays', async () => {
    const b = await bridge({ servers: [odd()] }, { retryDelayMs: 60_000 });
    const connection = b.bridge.connections.get('odd')!;
    const pid = connection.pid;
    const slow = b.call('odd__slow', { ms: 1_000 });
    const malformed = await b.call('odd__malformed_result');
    expect(malformed.error?.code).toBe('E_MCP_TOOL_ERROR');
    const message = malformed.error?.message ?? '';
    expect(message).toStartWith("MCP server 'odd' answered tools/call 'malformed_result' with a malformed result: ");
    expect(message).toContain('content: ');
    expect(message).toContain('isError: ');
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThan(300);
    expect(await slow).toEqual({ status: 'ok', output: 'waited 1000' });
    expect(connection.connected).toBe(true);
    expect(connection.pid).toBe(pid);
    expect(linesOf(b, 'warn')).toEqual([]);
  });

  test('an answer over 10 MiB fails that call, saying so; calls in flight finish and the process stays', async () => {
    const b = await bridge({ servers: [odd()] }, { retryDelayMs: 60_000 });
    const connection = b.bridge.connections.get('odd')!;
    const pid = connection.pid;
    const slow = b.call('odd__slow', { ms: 1_000 });
    // The server used to be killed (the SDK's read buffer loses its place), failing every call with E_MCP_UNAVAILABLE.
    const huge = await b.call('odd__huge');
    expect(huge.error?.code).toBe('E_MCP_TOOL_ERROR');
    expect(huge.error?.message).toMatch(
      /^tools\/call 'huge' on MCP server 'odd' failed: the answer was 115344\d\d bytes, more than the 10485760 \(10 MiB\) a message on stdio may be; it was skipped\. Ask for less at a time \(JSON-RPC -32603\)$/,
    );
    expect(await slow).toEqual({ status: 'ok', output: 'waited 1000' });
    expect(await b.call('odd__echo', { text: 'after' })).toEqual({ status: 'ok', output: 'after' });
    expect(connection.connected).toBe(true);
    expect(connection.pid).toBe(pid);
  });

  test("structuredContent is checked against the tool's outputSchema, as the SDK's callTool does", async () => {
    const b = await bridge({ servers: [odd()] }, { retryDelayMs: 60_000 });
    expect(await b.call('odd__typed')).toEqual({ status: 'ok', output: { n: 1 } });
    const mismatch = (await b.call('odd__typed', { mismatch: true })).error;
    expect(mismatch?.code).toBe('E_MCP_TOOL_ERROR');
    expect(mismatch?.message).toBe(
      "MCP server 'odd' answered tools/call 'typed' with structuredContent that does not match its outputSchema: data/n must be number",
    );
    expect(b.bridge.connections.get('odd')!.connected).toBe(true);
  });

  test('malformed tools in tools/list are skipped, one line each naming the tool and the problem; the rest register', async () => {
    const b = await bridge({ servers: [odd(['--malformed-tools'])] }, { retryDelayMs: 60_000 });
    expect(b.bridge.connections.get('odd')!.connected).toBe(true);
    expect(b.registry.has('odd__echo')).toBe(true);
    expect(await b.call('odd__echo', { text: 'still here' })).toEqual({ status: 'ok', output: 'still here' });
    for (const name of [
      'odd__no_schema',
      'odd__string_schema',
      'odd__bad_required',
      'odd__bogus_type',
      'odd__oversized',
    ]) {
      expect(b.registry.has(name)).toBe(false);
    }
    const skipped = linesOf(b, 'error');
    expect(skipped).toEqual([
      expect.stringMatching(
        /^MCP tool 'no_schema' of server 'odd' is skipped: its definition is malformed: inputSchema: /,
      ),
      expect.stringMatching(
        /^MCP tool 'string_schema' of server 'odd' is skipped: its definition is malformed: inputSchema\.type: /,
      ),
      expect.stringMatching(
        /^MCP tool 'bad_required' of server 'odd' is skipped: its definition is malformed: inputSchema\.required: /,
      ),
      expect.stringMatching(/^MCP tool #15 of server 'odd' is skipped: its definition is malformed: /),
      // Offered, they would have a provider refuse every request of the agent (OpenAI checks the schemas).
      expect.stringMatching(
        /^MCP tool 'bogus_type' of server 'odd' is skipped: its definition is malformed: inputSchema cannot be compiled: type must be JSONType or JSONType\[\]: bogus$/,
      ),
      expect.stringMatching(
        /^MCP tool 'broken_ref' of server 'odd' is skipped: its definition is malformed: inputSchema cannot be compiled: can't resolve reference #\/definitions\/nope/,
      ),
      // Sent to the model at every step: a definition of megabytes would break every step, not only its calls.
      "MCP tool 'oversized' of server 'odd' is skipped: its description and inputSchema are 100038 characters of JSON, more than the 100000 a tool may take in the model's tool list (sent at every step).",
    ]);
    for (const line of skipped) expect(line).not.toContain('\n');
    expect(b.logs.some((line) => line.text.includes('could not be reached'))).toBe(false);
  });

  test('a tools/list whose nextCursor never changes is cut at 100 pages, and the cut is logged', async () => {
    const b = await bridge({ servers: [odd(['--endless-cursor'])] }, { retryDelayMs: 60_000 });
    expect(b.registry.has('odd__echo')).toBe(true);
    expect(linesOf(b, 'warn')).toEqual([
      "MCP server 'odd' lists the tool 'echo' more than once; the first definition is used.",
      'MCP server \'odd\': tools/list had more than 100 pages (the last nextCursor: "same"); only the tools of the first 100 are used.',
    ]);
  });

  test('a server that sends list_changed after every listing: schemas are not compiled again, calls stay quick', async () => {
    // Each listing compiled every schema anew (~0.25 ms each): with 10 000 tools and list_changed in a loop, the agent
    // re-listed back to back with a core busy and its event loop held ~2 s at a time (every call of every tool waited).
    // The notice that came while connecting was lost, too (the listing stopped at 2): it is re-listed once connected.
    const getValidator = AjvJsonSchemaValidator.prototype.getValidator;
    let compiles = 0;
    AjvJsonSchemaValidator.prototype.getValidator = function (this: AjvJsonSchemaValidator, schema) {
      compiles += 1;
      return getValidator.call(this, schema);
    } as typeof getValidator;
    try {
      const b = await bridge({ servers: [odd(['--churn'])] }, { retryDelayMs: 60_000 });
      expect(b.registry.has('odd__many_1999')).toBe(true);
      const listings = async () => Number((await b.call('odd__listings')).output);
      while ((await listings()) < 3) await b.call('odd__echo', { text: 'wait' });
      const compiledAfterThree = compiles;
      const seen = await listings();
      while ((await listings()) < seen + 3) {
        expect(await b.call('odd__echo', { text: 'meanwhile' })).toEqual({ status: 'ok', output: 'meanwhile' });
      }
      // Three more listings of the same 2000 schemas compiled none of them.
      expect(compiles).toBe(compiledAfterThree);
      expect(await b.call('odd__many_7', { field_7: 'abc' })).toMatchObject({ status: 'error' });
      expect(linesOf(b, 'warn')).toEqual([]);
    } finally {
      AjvJsonSchemaValidator.prototype.getValidator = getValidator;
    }
  }, 60_000);
});
