// Kept apart from oauth-fixture.ts: the cross-process child imports that file, and should not load oidc-provider.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OAuthHost } from '../src/oauth/oauth-host.ts';
import type { OAuthAppResourceSpec, OAuthCaller, OAuthFlow } from '../src/oauth/oauth-types.ts';
import {
  type AuthorizationServer,
  followAuthorization,
  startAuthorizationServer,
} from './oauth-authorization-server.ts';
import { freePort } from './oauth-fixture.ts';

/** The authorization server a test file shares, a loopback redirect URI its client accepts, and a scratch directory. */
export interface OAuthTestbed {
  server: AuthorizationServer;
  redirectUri: string;
  /** The file's own temporary directory; close() removes it. */
  dir: string;
  /**
   * An app on the server's client: global subject, scopes that bring a refresh token; for authorizationCode the
   * redirect URI, and consent asked (oidc-provider issues a refresh token only then).
   */
  appSpec(flow: OAuthFlow): OAuthAppResourceSpec;
  /** The authorizationCode app as goondan.yaml declares it, named `github`; its secret comes from OAUTH_CLIENT_SECRET. */
  githubAppYaml(): string;
  /** Asks `host` for OAuthApp/github's token as `caller`, then completes the authorization as a person would. */
  authorize(host: Pick<OAuthHost, 'getAccessToken' | 'completeAuthorization'>, caller: OAuthCaller): Promise<void>;
  close(): Promise<void>;
}

export async function startOAuthTestbed(tempPrefix: string): Promise<OAuthTestbed> {
  const redirectUri = `http://127.0.0.1:${freePort()}/oauth/callback`;
  const server = await startAuthorizationServer({ redirectUris: [redirectUri] });
  const dir = mkdtempSync(join(tmpdir(), tempPrefix));
  return {
    server,
    redirectUri,
    dir,
    appSpec: (flow) => ({
      issuer: server.issuer,
      clientId: server.clientId,
      clientSecret: { value: server.clientSecret },
      scopes: ['openid', 'offline_access', 'profile'],
      subjectMode: 'global',
      flow,
      ...(flow === 'authorizationCode' ? { redirectUri, authorizationParams: { prompt: 'consent' } } : {}),
    }),
    githubAppYaml: () => `apiVersion: goondan.ai/v1
kind: OAuthApp
metadata: { name: github }
spec:
  issuer: ${server.issuer}
  clientId: ${server.clientId}
  clientSecret: { valueFrom: { env: OAUTH_CLIENT_SECRET } }
  scopes: [openid, offline_access, profile]
  subjectMode: global
  flow: authorizationCode
  redirectUri: ${redirectUri}
  authorizationParams: { prompt: consent }
`,
    async authorize(host, caller) {
      const pending = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' });
      if (pending.status !== 'authorization_required') throw new Error(JSON.stringify(pending));
      await host.completeAuthorization(await followAuthorization(pending.authorizationUrl!, redirectUri));
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
