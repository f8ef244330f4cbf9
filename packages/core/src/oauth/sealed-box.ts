import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { GoondanError } from '../errors/goondan-error.ts';

const VERSION = 'v1';

/**
 * AES-256-GCM with a random 12-byte IV; `identity` (the row's key, e.g. `grant:App/name:global`) is bound as
 * associated data, so a sealed value copied into another row does not open.
 * @example const sealed = seal({ key, identity: 'grant:a', plaintext: '{"accessToken":"..."}' });
 */
export function seal(options: { key: Buffer; identity: string; plaintext: string }): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', options.key, iv);
  cipher.setAAD(Buffer.from(options.identity));
  const body = Buffer.concat([cipher.update(options.plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

/** Opens what `seal` made; a wrong key, a tampered value or another row's value throws E_OAUTH_KEY. */
export function open(options: { key: Buffer; identity: string; sealed: string }): string {
  const [version, iv, tag, body] = options.sealed.split(':');
  try {
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', options.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(options.identity));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new GoondanError('E_OAUTH_KEY', `A stored OAuth value (${options.identity}) does not open with this key.`, {
      cause,
    });
  }
}
