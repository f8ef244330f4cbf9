import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { type KeychainEntry, osKeychainEntry } from './os-keychain.ts';

export const OAUTH_KEY_ENV = 'GOONDAN_OAUTH_KEY';
export const OAUTH_KEY_FILE_ENV = 'GOONDAN_OAUTH_KEY_FILE';
/** `0` (or `off`, `false`) keeps the OS keychain out: env variable, then the key file. */
export const OAUTH_KEYCHAIN_ENV = 'GOONDAN_OAUTH_KEYCHAIN';

/**
 * The 32-byte key that seals OAuth tokens, PKCE verifiers and states at rest (docs/oauth.md#the-key):
 * 1. GOONDAN_OAUTH_KEY: 32 bytes as base64 (44 characters) or hex (64);
 * 2. the OS keychain's entry (service `goondan`, account `oauth-key`), when one is stored;
 * 3. an existing key file, GOONDAN_OAUTH_KEY_FILE or ~/.config/goondan/oauth.key (a key already in use wins over
 *    making a new one, so stores sealed with it stay readable);
 * 4. a new key: stored in the OS keychain when it can be reached, else in a new key file with mode 0600.
 * The keychain is skipped when GOONDAN_OAUTH_KEY_FILE is set or GOONDAN_OAUTH_KEYCHAIN is `0`; when it cannot be
 * reached (headless Linux has no Secret Service) the key file is used. A key file group or others may read is
 * refused. `keychain` is injectable for tests (null: none).
 */
export function resolveOAuthKey(
  env: Record<string, string | undefined> = process.env,
  options: { keychain?: KeychainEntry | null } = {},
): Buffer {
  const inline = env[OAUTH_KEY_ENV];
  if (inline !== undefined && inline !== '') return decodeKey(inline, OAUTH_KEY_ENV);
  const file =
    env[OAUTH_KEY_FILE_ENV] || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'goondan', 'oauth.key');
  const keychainOff = Boolean(env[OAUTH_KEY_FILE_ENV]) || /^(0|off|false|no)$/i.test(env[OAUTH_KEYCHAIN_ENV] ?? '');
  const keychain = keychainOff ? null : options.keychain === undefined ? osKeychainEntry() : options.keychain;
  const stored = keychain ? attempt(() => keychain.get()) : undefined;
  if (stored) return decodeKey(stored, 'the OS keychain (service goondan, account oauth-key)');
  if (!existsSync(file) && keychain && stored === null) {
    // The keychain answered (no entry yet): the new key goes there, if it takes it.
    const created = randomBytes(32).toString('base64');
    if (attempt(() => keychain.set(created)) !== undefined && attempt(() => keychain.get()) === created) {
      return decodeKey(created, 'the OS keychain');
    }
  }
  return keyFromFile(file);
}

/** The result of `action`, or undefined when it threw (the keychain cannot be reached). */
function attempt<T>(action: () => T): T | undefined {
  try {
    return action() ?? (null as T);
  } catch {
    return undefined;
  }
}

function keyFromFile(file: string): Buffer {
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
