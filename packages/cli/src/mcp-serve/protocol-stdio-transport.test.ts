import { expect, test } from 'bun:test';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { NOT_INITIALIZED, ProtocolStdioTransport } from './protocol-stdio-transport.ts';

/** A transport on an in-memory stdin: what reaches the server, what is answered here, what is logged. */
async function transport() {
  const input = new PassThrough();
  const answered: Array<{ jsonrpc?: string; id?: unknown; error?: { code: number; message: string } }> = [];
  const logged: string[] = [];
  const delivered: JSONRPCMessage[] = [];
  const stdio = new ProtocolStdioTransport({
    input,
    output: {
      write: (text) => {
        for (const line of text.split('\n').filter(Boolean)) answered.push(JSON.parse(line));
        return true;
      },
      once: () => {},
      on: () => {},
    },
    logger: { error: (line: string) => logged.push(line) } as unknown as Console,
  });
  stdio.onmessage = (message) => delivered.push(message);
  await stdio.start();
  // PassThrough delivers 'data' synchronously on write, so each send is read before it returns.
  const send = (message: object) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return { send, answered, logged, delivered, close: () => stdio.close() };
}

const initialize = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unit', version: '1' } },
};

test('before initialize: a request other than ping is answered -32000 Server not initialized, never delivered', async () => {
  const { send, answered, logged, delivered, close } = await transport();
  send({ id: 7, method: 'tools/list' });
  send({ id: 'call', method: 'tools/call', params: { name: 'calc__add', arguments: {} } });
  expect(delivered).toEqual([]);
  expect(answered).toEqual([
    {
      jsonrpc: '2.0',
      id: 7,
      error: { code: NOT_INITIALIZED, message: expect.stringContaining('Server not initialized') },
    },
    { jsonrpc: '2.0', id: 'call', error: { code: -32000, message: expect.stringContaining('send initialize first') } },
  ]);
  expect(logged).toEqual([
    'gdn mcp serve: stdin: a request ("tools/list") before initialize was refused; answered -32000',
    'gdn mcp serve: stdin: a request ("tools/call") before initialize was refused; answered -32000',
  ]);
  await close();
});

test('before initialize: ping goes to the server; a notification is ignored (logged, not answered)', async () => {
  const { send, answered, logged, delivered, close } = await transport();
  send({ id: 2, method: 'ping' });
  send({ method: 'notifications/initialized' });
  // Even one called initialize: only a request initializes.
  send({ method: 'initialize', params: initialize.params });
  send({ method: 'notifications/\u001b[2Jcancelled', params: { requestId: 2 } });
  expect(delivered).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  expect(answered).toEqual([]);
  expect(logged).toEqual([
    'gdn mcp serve: stdin: a notification ("notifications/initialized") before initialize was ignored',
    'gdn mcp serve: stdin: a notification ("initialize") before initialize was ignored',
    // The method quoted as JSON: its escape sequence does not reach the terminal as one.
    'gdn mcp serve: stdin: a notification ("notifications/\\u001b[2Jcancelled") before initialize was ignored',
  ]);
  send({ id: 3, method: 'tools/list' });
  expect(answered.map((answer) => [answer.id, answer.error?.code])).toEqual([[3, -32000]]);
  await close();
});

test('after initialize every message goes to the server; a second initialize is -32600 Server already initialized', async () => {
  const { send, answered, logged, delivered, close } = await transport();
  send(initialize);
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  send({ id: 3, method: 'ping' });
  expect(delivered.map((message) => ('method' in message ? message.method : undefined))).toEqual([
    'initialize',
    'notifications/initialized',
    'tools/list',
    'ping',
  ]);
  send({ ...initialize, id: 4 });
  expect(delivered).toHaveLength(4);
  expect(answered).toEqual([
    {
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32600, message: 'Invalid Request: Server already initialized; a connection is initialized once' },
    },
  ]);
  expect(logged).toEqual([
    'gdn mcp serve: stdin: a second initialize was refused (a connection is initialized once); answered -32600',
  ]);
  await close();
});

test('an initialize whose params are invalid is -32602 and does not initialize: the next one does', async () => {
  const { send, answered, delivered, close } = await transport();
  send({ id: 1, method: 'initialize', params: { ...initialize.params, protocolVersion: 5 } });
  send({ id: 2, method: 'tools/list' });
  send({ ...initialize, id: 3 });
  send({ id: 4, method: 'tools/list' });
  expect(answered.map((answer) => [answer.id, answer.error?.code])).toEqual([
    [1, -32602],
    [2, -32000],
  ]);
  expect(delivered.map((message) => ('id' in message ? message.id : undefined))).toEqual([3, 4]);
  await close();
});

test('an answer (result or error) before initialize still goes to the server, which logs one to nothing it asked', async () => {
  const { send, answered, delivered, close } = await transport();
  send({ id: 9, result: {} });
  expect(delivered).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
  expect(answered).toEqual([]);
  await close();
});
