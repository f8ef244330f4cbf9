import { GoondanError, type OAuthCaller, useOAuthService } from '@goondan/core';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * A fetch for an OAuth-protected HTTP MCP server (`oauthAppRef` in its config; docs/oauth.md#mcp-servers): every
 * request carries `authorization: Bearer …` with a token from the OAuth host, the same store and grants tools use
 * (refreshed there when near expiry). The SDK's own OAuth flow (OAuthClientProvider) is not used, so there is one
 * writer of grants. Without a grant the request fails with what a person must do (the authorization link or
 * device code), which the connection reports as E_MCP_UNAVAILABLE; once granted, the next call reconnects.
 */
export function oauthBearerFetch(options: {
  baseFetch: FetchLike;
  server: string;
  oauthAppRef: string;
  caller: OAuthCaller;
}): FetchLike {
  const { baseFetch, server, oauthAppRef, caller } = options;
  return async function fetchWithBearer(url, init) {
    const result = await useOAuthService().getAccessToken({ caller, oauthAppRef });
    if (result.status === 'error') {
      throw new GoondanError(result.error.code as never, `MCP server '${server}': ${result.error.message}`, {
        suggestion: result.error.suggestion,
      });
    }
    if (result.status === 'authorization_required') {
      const how = result.authorizationUrl
        ? `open ${result.authorizationUrl}`
        : `enter ${result.userCode} at ${result.verificationUri}`;
      throw new Error(`MCP server '${server}' needs authorization of ${oauthAppRef}: ${how} (or run gdn auth login)`);
    }
    const headers = new Headers(init?.headers);
    headers.set(
      'authorization',
      `${result.tokenType === 'bearer' ? 'Bearer' : result.tokenType} ${result.accessToken}`,
    );
    return baseFetch(url, { ...init, headers });
  };
}
