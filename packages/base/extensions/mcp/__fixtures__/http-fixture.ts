import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createFixtureServer } from './fixture-server.ts';

/** The fixture MCP server over streamable HTTP on 127.0.0.1 (a port the OS picks), one Server per session. */
export function startHttpFixture(port = 0) {
  /** The status an unknown mcp-session-id gets: 404 as the spec says, or 400 as many servers answer. */
  const behaviour = { unknownSessionStatus: 404 };
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = Bun.serve({
    hostname: '127.0.0.1',
    port,
    idleTimeout: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId) {
        const transport = sessions.get(sessionId);
        if (!transport)
          return Response.json(
            { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
            { status: behaviour.unknownSessionStatus },
          );
        return transport.handleRequest(request);
      }
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      await createFixtureServer().connect(transport);
      return transport.handleRequest(request);
    },
  });
  return {
    port: http.port,
    url: `http://127.0.0.1:${http.port}/mcp`,
    sessions,
    get unknownSessionStatus() {
      return behaviour.unknownSessionStatus;
    },
    set unknownSessionStatus(status: number) {
      behaviour.unknownSessionStatus = status;
    },
    async stop() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await http.stop(true);
    },
  };
}

/** Run as a script (a server process tests can kill): prints `listening URL` on stdout once it serves. */
if (import.meta.main) {
  const server = startHttpFixture();
  console.log(`listening ${server.url}`);
}
