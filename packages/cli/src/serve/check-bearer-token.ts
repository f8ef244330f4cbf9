import { timingSafeEqual } from 'node:crypto';
import { GoondanError } from '@goondan/core';

const sha256 = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest();

/**
 * Throws E_SERVE_UNAUTHORIZED unless the request carries `Authorization: Bearer <token>`. The two are compared as
 * SHA-256 digests in constant time: a comparison of the tokens themselves answers at once when their lengths
 * differ, which tells a caller who times it how long the token is.
 */
export function checkBearerToken(request: Request, token: string): void {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!timingSafeEqual(sha256(match?.[1]?.trim() ?? ''), sha256(token))) {
    throw new GoondanError('E_SERVE_UNAUTHORIZED', "This server needs 'Authorization: Bearer TOKEN'.");
  }
}

/** True for addresses only this machine reaches: 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Throws E_SERVE_TOKEN_REQUIRED when asked to listen beyond loopback without a token. */
export function checkListenAddress(hostname: string, token: string | undefined, command = 'gdn serve'): void {
  if (isLoopbackHost(hostname) || token) return;
  throw new GoondanError('E_SERVE_TOKEN_REQUIRED', `${command} will not listen on ${hostname} without a token.`);
}
