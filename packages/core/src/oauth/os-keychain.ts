import { createRequire } from 'node:module';

/** One secret in the OS keychain (macOS Keychain, Windows Credential Manager, Secret Service on Linux). */
export interface KeychainEntry {
  /** The stored value, or null when there is none. Throws when the keychain cannot be reached. */
  get(): string | null;
  /** Stores `value`. Throws when the keychain cannot be reached. */
  set(value: string): void;
}

export const KEYCHAIN_SERVICE = 'goondan';
export const KEYCHAIN_ACCOUNT = 'oauth-key';

/**
 * The OS keychain entry that holds the OAuth store key, through @napi-rs/keyring (loads under Bun). Null when the
 * native module cannot load on this platform. Reaching the keychain may still fail (headless Linux has no Secret
 * Service: "Couldn't access platform storage"); callers fall back to the key file then.
 */
export function osKeychainEntry(): KeychainEntry | null {
  let Entry: new (
    service: string,
    account: string,
  ) => {
    getPassword(): string | null | undefined;
    setPassword(value: string): void;
  };
  try {
    // Loaded lazily: a platform without a prebuilt binary must not break everything else that imports core.
    ({ Entry } = createRequire(import.meta.url)('@napi-rs/keyring'));
  } catch {
    return null;
  }
  const entry = new Entry(KEYCHAIN_SERVICE, KEYCHAIN_ACCOUNT);
  return {
    get: () => entry.getPassword() ?? null,
    set: (value) => entry.setPassword(value),
  };
}
