import { timingSafeEqual } from 'node:crypto';
import { GoondanError } from '@goondan/core';

/** Throws E_SERVE_UNAUTHORIZED unless the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function checkBearerToken(request: Request, token: string): void {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  const given = Buffer.from(match?.[1]?.trim() ?? '');
  const wanted = Buffer.from(token);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
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
