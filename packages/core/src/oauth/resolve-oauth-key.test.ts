import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeychainEntry } from './os-keychain.ts';
import { osKeychainEntry } from './os-keychain.ts';
import { resolveOAuthKey } from './resolve-oauth-key.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-oauth-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `key-${++files}`, 'oauth.key');

/** A keychain in memory; `reachable: false` throws as a headless Linux without Secret Service does. */
function fakeKeychain(reachable: boolean, value: string | null = null): KeychainEntry & { value: string | null } {
  const entry = {
    value,
    get() {
      if (!reachable) throw new Error("Couldn't access platform storage: AccessDenied");
      return entry.value;
    },
    set(next: string) {
      if (!reachable) throw new Error("Couldn't access platform storage: AccessDenied");
      entry.value = next;
    },
  };
  return entry;
}

/** XDG_CONFIG_HOME pointing at a fresh directory: where the default key file goes. */
function configHome(): { env: Record<string, string>; file: string } {
  const home = join(dir, `config-${++files}`);
  return { env: { XDG_CONFIG_HOME: home }, file: join(home, 'goondan', 'oauth.key') };
}

describe('resolveOAuthKey: env variable, OS keychain, key file', () => {
  test('GOONDAN_OAUTH_KEY wins over the keychain and the file', () => {
    const key = Buffer.alloc(32, 7);
    const keychain = fakeKeychain(true, Buffer.alloc(32, 1).toString('base64'));
    expect(resolveOAuthKey({ GOONDAN_OAUTH_KEY: key.toString('hex') }, { keychain })).toEqual(key);
  });

  test('a reachable keychain receives a new key and gives it back; no key file is written', () => {
    const { env, file } = configHome();
    const keychain = fakeKeychain(true);
    const first = resolveOAuthKey(env, { keychain });
    expect(keychain.value).toBe(first.toString('base64'));
    expect(resolveOAuthKey(env, { keychain })).toEqual(first);
    expect(existsSync(file)).toBe(false);
  });

  test('an unreachable keychain (headless Linux) falls back to a new 0600 key file', () => {
    const { env, file } = configHome();
    const key = resolveOAuthKey(env, { keychain: fakeKeychain(false) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(key as Buffer<ArrayBuffer>);
    expect(resolveOAuthKey(env, { keychain: fakeKeychain(false) })).toEqual(key);
  });

  test('a key file already in use wins over making a keychain entry; GOONDAN_OAUTH_KEY_FILE skips the keychain', () => {
    const { env, file } = configHome();
    const existing = resolveOAuthKey(env, { keychain: null });
    const keychain = fakeKeychain(true);
    expect(resolveOAuthKey(env, { keychain })).toEqual(existing);
    expect(keychain.value).toBeNull();
    const explicit = freshFile();
    const stored = fakeKeychain(true, Buffer.alloc(32, 3).toString('base64'));
    const fromFile = resolveOAuthKey({ GOONDAN_OAUTH_KEY_FILE: explicit }, { keychain: stored });
    expect(fromFile).not.toEqual(Buffer.alloc(32, 3));
    expect(existsSync(explicit)).toBe(true);
    expect(existsSync(file)).toBe(true);
  });

  test('GOONDAN_OAUTH_KEYCHAIN=0 keeps the keychain out', () => {
    const { env, file } = configHome();
    const keychain = fakeKeychain(true, Buffer.alloc(32, 5).toString('base64'));
    const key = resolveOAuthKey({ ...env, GOONDAN_OAUTH_KEYCHAIN: '0' }, { keychain });
    expect(key).not.toEqual(Buffer.alloc(32, 5));
    expect(existsSync(file)).toBe(true);
  });

  test('a key file others may read is refused with E_OAUTH_KEY', () => {
    const file = freshFile();
    resolveOAuthKey({ GOONDAN_OAUTH_KEY_FILE: file });
    chmodSync(file, 0o644);
    expect(() => resolveOAuthKey({ GOONDAN_OAUTH_KEY_FILE: file })).toThrow(
      expect.objectContaining({ code: 'E_OAUTH_KEY' }),
    );
    writeFileSync(file, 'short\n', { mode: 0o600 });
    chmodSync(file, 0o600);
    expect(() => resolveOAuthKey({ GOONDAN_OAUTH_KEY_FILE: file })).toThrow(
      expect.objectContaining({ code: 'E_OAUTH_KEY' }),
    );
  });

  test('the @napi-rs/keyring binding loads under Bun; reading the keychain answers or throws (then: the file)', () => {
    const entry = osKeychainEntry();
    expect(entry).not.toBeNull();
    try {
      const value = entry!.get();
      expect(value === null || typeof value === 'string').toBe(true);
    } catch (error) {
      // Headless Linux without a Secret Service: "Couldn't access platform storage".
      expect(String(error)).toMatch(/platform|storage|secret|keychain/i);
    }
  });
});
