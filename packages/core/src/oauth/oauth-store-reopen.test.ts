import { afterEach, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuthStore } from './oauth-store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tokens = (accessToken: string) => ({ accessToken, tokenType: 'bearer', expiresAt: null });

test('oauth.db deleted while open: a grant saved after it is stored in a new file at its path, read at the next start', () => {
  const root = mkdtempSync(join(tmpdir(), 'gdn-oauth-reopen-'));
  dirs.push(root);
  const stateDir = join(root, '.goondan');
  const path = join(stateDir, 'oauth.db');
  const key = randomBytes(32);
  const reopened: string[] = [];
  const store = new OAuthStore(path, key, { onReopened: (file) => reopened.push(file) });
  store.saveGrant({ app: 'github', subject: 'alice', tokens: tokens('before-the-deletion'), scopes: ['repo'] });
  rmSync(stateDir, { recursive: true, force: true });

  store.saveGrant({ app: 'github', subject: 'bob', tokens: tokens('after-the-deletion'), scopes: ['repo'] });
  expect(existsSync(path)).toBe(true);
  expect(reopened).toEqual([path]);
  expect(store.getGrant('github', 'alice')).toBeUndefined();
  store.close();

  // The next start (another process) reads it from the file on disk.
  const next = new OAuthStore(path, key);
  expect(next.listGrants().map((grant) => grant.subject)).toEqual(['bob']);
  expect(next.getGrant('github', 'bob')?.tokens.accessToken).toBe('after-the-deletion');
  next.close();
});
