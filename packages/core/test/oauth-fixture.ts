import { randomBytes } from 'node:crypto';
import type { Bundle, Resource } from '../src/config/resources.ts';
import type { OAuthAppResourceSpec } from '../src/oauth/oauth-types.ts';

/** A bundle holding only OAuthApps (what the OAuth host reads), keyed `OAuthApp/name`. */
export function oauthBundle(apps: Record<string, OAuthAppResourceSpec>): Bundle {
  const resources = new Map<string, Resource>();
  for (const [name, spec] of Object.entries(apps)) {
    resources.set(`OAuthApp/${name}`, {
      apiVersion: 'goondan.ai/v1',
      kind: 'OAuthApp',
      metadata: { name },
      spec,
      location: { file: 'goondan.yaml', line: 1, column: 1, baseDir: '/' },
    });
  }
  return { rootDir: '/', resources };
}

/** A fresh store key, as GOONDAN_OAUTH_KEY holds it. */
export function freshKey(): string {
  return randomBytes(32).toString('base64');
}

/** A loopback port nothing listens on right now. */
export function freePort(): number {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}
