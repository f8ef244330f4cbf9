import { GoondanError } from '../errors/goondan-error.ts';
import type { OAuthService } from './oauth-types.ts';

/**
 * Held on globalThis under a registered symbol, not in a module variable: a bundle that installed its own copy of
 * @goondan/core (another module instance) still reaches the service this process installed.
 */
const SLOT = Symbol.for('goondan.oauth.service');
type Slot = { [SLOT]?: OAuthService };

/** Installs the OAuth service of this process: the host itself, or in an agent process its IPC client. */
export function provideOAuthService(service: OAuthService | undefined): void {
  (globalThis as Slot)[SLOT] = service;
}

/**
 * The OAuth service, reached explicitly by tools and extensions (spec v2 keeps `oauth` off ToolContext).
 * Throws E_OAUTH_UNAVAILABLE when this process has none.
 * @example
 * const result = await useOAuthService().getAccessToken({ caller: ctx, oauthAppRef: 'OAuthApp/github' });
 * if (result.status === 'ready') fetch(url, { headers: { authorization: `Bearer ${result.accessToken}` } });
 */
export function useOAuthService(): OAuthService {
  const current = (globalThis as Slot)[SLOT];
  if (!current) throw new GoondanError('E_OAUTH_UNAVAILABLE', 'No OAuth service runs in this process.');
  return current;
}
