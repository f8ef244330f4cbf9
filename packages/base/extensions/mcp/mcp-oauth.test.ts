import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createOAuthHost, OAuthStore, provideOAuthService, resolveOAuthKey } from '@goondan/core';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { freshKey, oauthBundle } from '../../../core/test/oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from '../../../core/test/oauth-testbed.ts';
import { createFixtureServer } from './__fixtures__/fixture-server.ts';
import { startBridge } from './__fixtures__/harness.ts';

let bed: OAuthTestbed;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-mcp-oauth-');
});
afterAll(async () => {
  provideOAuthService(undefined);
  await bed.close();
});

/**
 * The fixture MCP server behind a bearer check: each request's token is validated at the authorization server
 * (its userinfo endpoint answers 200 only for a live access token); anything else is 401 and never reaches MCP.
 */
function startProtectedMcpServer(issuer: string) {
  const seen = { refused: 0, tokens: new Set<string>() };
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      const valid = token && (await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${token}` } })).ok;
      if (!valid) {
        seen.refused++;
        return new Response('unauthorized', { status: 401, headers: { 'www-authenticate': 'Bearer' } });
      }
      seen.tokens.add(token);
      const sessionId = request.headers.get('mcp-session-id');
      const existing = sessionId ? sessions.get(sessionId) : undefined;
      if (existing) return existing.handleRequest(request);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      await createFixtureServer().connect(transport);
      return transport.handleRequest(request);
    },
  });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    seen,
    async stop() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await http.stop(true);
    },
  };
}

describe('mcp extension: an OAuth-protected HTTP server (oauthAppRef)', () => {
  test('without a grant the call says how to authorize and sends nothing; once granted, calls carry the token', async () => {
    const bundle = oauthBundle({ github: bed.appSpec('authorizationCode') });
    const store = new OAuthStore(join(bed.dir, 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
    const host = createOAuthHost({ bundle, store });
    provideOAuthService(host);
    const mcp = startProtectedMcpServer(bed.server.issuer);
    const b = await startBridge(
      { servers: [{ name: 'secured', url: mcp.url, oauthAppRef: 'OAuthApp/github' }] },
      { retryDelayMs: 60_000 },
    );
    try {
      const refused = await b.call('secured__echo', { text: 'hi' });
      expect(refused.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
      expect(b.logs.some((line) => line.text.includes('needs authorization of OAuthApp/github'))).toBe(true);
      expect(mcp.seen.refused + mcp.seen.tokens.size).toBe(0);

      await bed.authorize(host, { agentName: 'mcp', instanceKey: 'default' });

      await b.bridge.connections.get('secured')!.connect();
      expect(await b.call('secured__echo', { text: 'hi' })).toEqual({ status: 'ok', output: 'hi' });
      const granted = store.getGrant('OAuthApp/github', 'global')!.tokens.accessToken;
      expect([...mcp.seen.tokens]).toEqual([granted]);
      expect(mcp.seen.refused).toBe(0);
    } finally {
      await b.close();
      await mcp.stop();
      store.close();
    }
  }, 60_000);
});
