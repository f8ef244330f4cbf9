import { GoondanError } from '../errors/goondan-error.ts';
import type { OAuthService } from './oauth-types.ts';

let current: OAuthService | undefined;

/** Installs the OAuth service of this process: the host itself, or (later) an IPC client of it. */
export function provideOAuthService(service: OAuthService | undefined): void {
  current = service;
}

/**
 * The OAuth service, reached explicitly by tools and extensions (spec v2 keeps `oauth` off ToolContext).
 * Throws E_OAUTH_UNAVAILABLE when this process has none.
 * @example
 * const result = await useOAuthService().getAccessToken({ caller: ctx, oauthAppRef: 'OAuthApp/github' });
 * if (result.status === 'ready') fetch(url, { headers: { authorization: `Bearer ${result.accessToken}` } });
 */
export function useOAuthService(): OAuthService {
  if (!current) throw new GoondanError('E_OAUTH_UNAVAILABLE', 'No OAuth service runs in this process.');
  return current;
}
