import type * as oauth from 'oauth4webapi';
import { rememberSecretValue } from '../permissions/secret-registry.ts';
import type { GrantTokens } from './oauth-store.ts';

/**
 * A token endpoint answer as the grant stores it. Tokens are remembered as secrets at once, so every output sink
 * of this process masks them (docs/audit.md#redaction).
 */
export function tokensOf(answer: oauth.TokenEndpointResponse, now: number, previousRefreshToken?: string): GrantTokens {
  const refreshToken = answer.refresh_token ?? previousRefreshToken;
  rememberSecretValue(answer.access_token);
  if (refreshToken) rememberSecretValue(refreshToken);
  return {
    accessToken: answer.access_token,
    ...(refreshToken ? { refreshToken } : {}),
    tokenType: answer.token_type,
    expiresAt: typeof answer.expires_in === 'number' ? now + answer.expires_in * 1000 : null,
  };
}

/** The scopes the server granted (its `scope`), else `asked`. */
export function scopesOf(answer: oauth.TokenEndpointResponse, asked: string[]): string[] {
  return typeof answer.scope === 'string' && answer.scope ? answer.scope.split(' ') : asked;
}
