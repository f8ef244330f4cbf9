import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';

export const OAUTH_KEY_ENV = 'GOONDAN_OAUTH_KEY';
export const OAUTH_KEY_FILE_ENV = 'GOONDAN_OAUTH_KEY_FILE';

/**
 * The 32-byte key that seals OAuth tokens, PKCE verifiers and states at rest (docs/oauth.md#the-key):
 * 1. GOONDAN_OAUTH_KEY: 32 bytes as base64 (44 characters) or hex (64);
 * 2. else a key file, GOONDAN_OAUTH_KEY_FILE or ~/.config/goondan/oauth.key, created with 32 random bytes and
 *    mode 0600 when missing; a file that group or others may read is refused.
 * An OS keychain is not consulted yet (decision in docs/decisions.md).
 */
export function resolveOAuthKey(env: Record<string, string | undefined> = process.env): Buffer {
  const inline = env[OAUTH_KEY_ENV];
  if (inline !== undefined && inline !== '') return decodeKey(inline, OAUTH_KEY_ENV);
  const file =
    env[OAUTH_KEY_FILE_ENV] || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'goondan', 'oauth.key');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw keyError(`Cannot create the key file ${file}.`, error);
    }
    chmodSync(file, 0o600);
  }
  const mode = statSync(file).mode & 0o077;
  if (mode !== 0) {
    throw keyError(
      `The OAuth key file ${file} may be read by others (mode ${(statSync(file).mode & 0o777).toString(8)}).`,
    );
  }
  return decodeKey(readFileSync(file, 'utf8').trim(), file);
}

function decodeKey(text: string, where: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (bytes.length !== 32) throw keyError(`The OAuth key in ${where} is not 32 bytes of base64 or hex.`);
  return bytes;
}

function keyError(message: string, cause?: unknown): GoondanError {
  return new GoondanError('E_OAUTH_KEY', message, { cause });
}
