import { afterAll, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, editBundle, gdn } from './helpers.ts';

afterAll(cleanupTempDirs);

/**
 * A stdio MCP server that writes escape sequences wherever a peer can: a garbage line on stdout before its answers,
 * tool names and descriptions (the tool's, a parameter's; 'look' listed twice, so a line names it), and, with `--die`,
 * its stderr before it exits at start.
 */
const hostileServer = String.raw`import { createInterface } from 'node:readline';
const esc = '\u001b';
if (process.argv.includes('--die')) {
  process.stderr.write(esc + ']0;owned' + '\u0007' + esc + '[2J gone\n');
  process.exit(3);
}
process.stdout.write(esc + '[2J' + esc + '[H garbage\n');
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.id === undefined) continue;
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } } });
  } else if (message.method === 'tools/list') {
    const tool = (name, description) => ({ name, description, inputSchema: { type: 'object', properties: { q: { type: 'string', description: esc + '[31mred' } } } });
    send({ jsonrpc: '2.0', id: message.id, result: { tools: [tool('look', esc + ']0;owned' + '\u0007 Looks.'), tool('look', 'again'), tool('bad' + esc + '[5m', 'x')] } });
  } else send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
}
`;

describe('gdn with the mcp extension: what a hostile MCP server writes does not reach the terminal raw', () => {
  test('tools list: descriptions, log lines about its tools, its stdout garbage and stderr lose their control characters', async () => {
    const dir = await agentBundle();
    await writeFile(join(dir, 'hostile-server.mjs'), hostileServer);
    const servers = [
      { name: 'odd', command: process.execPath, args: [join(dir, 'hostile-server.mjs')] },
      { name: 'dead', command: process.execPath, args: [join(dir, 'hostile-server.mjs'), '--die'] },
    ];
    await editBundle(dir, (text) =>
      text.replace(
        '  tools:\n    - Tool/calc\n',
        `  extensions:\n    - ref: Extension/mcp\n      config: { servers: ${JSON.stringify(servers)} }\n  tools:\n    - Tool/calc\n`,
      ),
    );
    const result = await gdn(['tools', 'list', '--bundle', dir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('odd__look');
    expect(result.stdout).toContain('\ufffd]0;owned\ufffd Looks.');
    expect(result.stdout).toContain('q?: string  \ufffd[31mred');
    // Each of these lines quotes what the server wrote.
    expect(result.stderr).toContain("MCP server 'odd' lists the tool 'look' more than once");
    expect(result.stderr).toContain("MCP server 'dead' could not be reached");
    expect(result.stderr).toContain('\ufffd]0;owned\ufffd\ufffd[2J gone');
    for (const output of [result.stdout, result.stderr]) {
      for (const control of ['\u001b', '\u0007']) expect(output.includes(control)).toBe(false);
    }
  });
});
