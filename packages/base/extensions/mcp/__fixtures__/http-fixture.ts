import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createFixtureServer } from './fixture-server.ts';

/** The fixture MCP server over streamable HTTP on 127.0.0.1 (a port the OS picks), one Server per session. */
export function startHttpFixture(port = 0) {
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
            { status: 404 },
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
    async stop() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await http.stop(true);
    },
  };
}
