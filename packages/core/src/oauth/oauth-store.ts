import { Database } from 'bun:sqlite';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { rememberSecretValue } from '../permissions/secret-registry.ts';
import { type ReopeningDatabase, reopeningDatabase } from '../store/reopening-database.ts';
import { toStoreError } from '../store/to-store-error.ts';
import { open, seal } from './sealed-box.ts';

/** The secret part of a grant; sealed at rest. */
export interface GrantTokens {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  /** Epoch ms, or null when the server did not say. */
  expiresAt: number | null;
}

export interface StoredGrant {
  tokens: GrantTokens;
  scopes: string[];
  version: number;
}

/** The secret part of a pending authorization; sealed at rest. */
export interface SessionSecret {
  state?: string;
  codeVerifier?: string;
  deviceCode?: string;
  /** Holds the state, so it is sealed too. */
  authorizationUrl?: string;
}

export interface StoredSession {
  id: string;
  app: string;
  subject: string;
  flow: string;
  scopes: string[];
  /** Agent and instance that asked, for the auth.granted event. */
  requester: { agentName: string; instanceKey: string } | null;
  /** What may be shown: the authorization URL or user code, verification URI, message. */
  shown: Record<string, string>;
  secret: SessionSecret;
  expiresAt: number;
  usedAt: number | null;
  intervalSeconds: number;
}

const schema = `
CREATE TABLE IF NOT EXISTS oauth_grants (app TEXT NOT NULL, subject TEXT NOT NULL, sealed TEXT NOT NULL,
  scopes TEXT NOT NULL, expires_at INTEGER, version INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  PRIMARY KEY (app, subject));
CREATE TABLE IF NOT EXISTS oauth_sessions (id TEXT PRIMARY KEY, app TEXT NOT NULL, subject TEXT NOT NULL,
  flow TEXT NOT NULL, scopes TEXT NOT NULL, requester TEXT, shown TEXT NOT NULL, sealed TEXT NOT NULL,
  state_hash TEXT UNIQUE, expires_at INTEGER NOT NULL, used_at INTEGER, interval_seconds INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS oauth_leases (app TEXT NOT NULL, subject TEXT NOT NULL, holder TEXT NOT NULL,
  until INTEGER NOT NULL, PRIMARY KEY (app, subject));`;

/** SHA-256 of a state, the lookup key of a callback (the state itself is only stored sealed). */
export function hashState(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

/**
 * Grants, pending authorizations and refresh leases in `<stateDir>/oauth.db` (docs/oauth.md#the-store). Tokens,
 * PKCE verifiers, states and device codes are sealed with AES-256-GCM, bound to their row. The host process is
 * the one writer; agent processes ask it (docs/oauth.md). Several hosts on one file stay correct: every change
 * is one SQLite statement or an IMMEDIATE transaction, and refreshes take a lease (single-flight).
 */
export class OAuthStore {
  private readonly handle: ReopeningDatabase;

  /**
   * `options.onReopened` is told when the file was deleted or replaced while open (`rm -rf .goondan` under a running
   * host) and is opened again at its path, created afresh: grants saved from then on are kept, not written into the
   * unlinked file and lost at the next start.
   */
  constructor(
    private readonly path: string,
    private readonly key: Buffer,
    options: { onReopened?: (path: string) => void } = {},
  ) {
    this.handle = reopeningDatabase({
      path,
      open: openOAuthDatabase,
      ...(options.onReopened ? { onReopened: options.onReopened } : {}),
    });
  }

  /** The database at the path now (opened again when its file was deleted or replaced; a stat per statement). */
  private get db(): Database {
    return this.handle.current();
  }

  /** A SQLite failure of the file itself (damaged, overwritten, read-only) as E_STORE_CORRUPT / E_STORE_OPEN. */
  private guard<T>(action: () => T): T {
    try {
      return action();
    } catch (error) {
      throw toStoreError(error, this.path, 'OAuth store');
    }
  }

  getGrant(app: string, subject: string): StoredGrant | undefined {
    return this.guard(() => {
      const row = this.db
        .query<{ sealed: string; scopes: string; version: number }, [string, string]>(
          'SELECT sealed, scopes, version FROM oauth_grants WHERE app = ? AND subject = ?',
        )
        .get(app, subject);
      if (!row) return undefined;
      const tokens: GrantTokens = JSON.parse(
        open({ key: this.key, identity: grantIdentity(app, subject), sealed: row.sealed }),
      );
      // A token read from the store is a secret of this process from now on: every output sink masks it.
      rememberSecretValue(tokens.accessToken);
      if (tokens.refreshToken) rememberSecretValue(tokens.refreshToken);
      return { tokens, scopes: JSON.parse(row.scopes), version: row.version };
    });
  }

  saveGrant(options: { app: string; subject: string; tokens: GrantTokens; scopes: string[] }): void {
    return this.guard(() => {
      const { app, subject, tokens, scopes } = options;
      const sealed = seal({ key: this.key, identity: grantIdentity(app, subject), plaintext: JSON.stringify(tokens) });
      this.db
        .query(
          `INSERT INTO oauth_grants (app, subject, sealed, scopes, expires_at, version, updated_at)
           VALUES (?, ?, ?, ?, ?, 1, ?)
           ON CONFLICT (app, subject) DO UPDATE SET sealed = excluded.sealed, scopes = excluded.scopes,
             expires_at = excluded.expires_at, version = version + 1, updated_at = excluded.updated_at`,
        )
        .run(app, subject, sealed, JSON.stringify(scopes), tokens.expiresAt, Date.now());
    });
  }

  deleteGrant(app: string, subject: string): boolean {
    return this.guard(() => {
      return this.db.query('DELETE FROM oauth_grants WHERE app = ? AND subject = ?').run(app, subject).changes > 0;
    });
  }

  /** Grants without their secrets, for `gdn auth list`. */
  listGrants(): { app: string; subject: string; scopes: string[]; expiresAt: number | null; updatedAt: number }[] {
    return this.guard(() => {
      return this.db
        .query<{ app: string; subject: string; scopes: string; expires_at: number | null; updated_at: number }, []>(
          'SELECT app, subject, scopes, expires_at, updated_at FROM oauth_grants ORDER BY app, subject',
        )
        .all()
        .map((row) => ({
          app: row.app,
          subject: row.subject,
          scopes: JSON.parse(row.scopes),
          expiresAt: row.expires_at,
          updatedAt: row.updated_at,
        }));
    });
  }

  saveSession(session: Omit<StoredSession, 'usedAt'>): void {
    return this.guard(() => {
      const sealed = seal({
        key: this.key,
        identity: sessionIdentity(session.id),
        plaintext: JSON.stringify(session.secret),
      });
      this.db
        .query(
          `INSERT INTO oauth_sessions (id, app, subject, flow, scopes, requester, shown, sealed, state_hash, expires_at,
             interval_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          session.id,
          session.app,
          session.subject,
          session.flow,
          JSON.stringify(session.scopes),
          session.requester ? JSON.stringify(session.requester) : null,
          JSON.stringify(session.shown),
          sealed,
          session.secret.state ? hashState(session.secret.state) : null,
          session.expiresAt,
          session.intervalSeconds,
        );
    });
  }

  sessionByState(state: string): StoredSession | undefined {
    return this.guard(() => {
      return this.readSession('state_hash = ?', hashState(state));
    });
  }

  session(id: string): StoredSession | undefined {
    return this.guard(() => {
      return this.readSession('id = ?', id);
    });
  }

  /** A session of (app, subject) that is neither used nor expired, to show again instead of starting another. */
  openSession(app: string, subject: string, now: number): StoredSession | undefined {
    return this.guard(() => {
      const row = this.db
        .query<{ id: string }, [string, string, number]>(
          `SELECT id FROM oauth_sessions WHERE app = ? AND subject = ? AND used_at IS NULL AND expires_at > ?
           ORDER BY expires_at DESC LIMIT 1`,
        )
        .get(app, subject, now);
      return row ? this.session(row.id) : undefined;
    });
  }

  /** Sessions `requester` started that are neither used nor expired (guidance blocks, docs/oauth.md#guidance). */
  pendingSessionsOf(requester: { agentName: string; instanceKey: string }, now: number): StoredSession[] {
    return this.guard(() => {
      return this.db
        .query<{ id: string }, [string, string, number]>(
          `SELECT id FROM oauth_sessions WHERE json_extract(requester, '$.agentName') = ?
             AND json_extract(requester, '$.instanceKey') = ? AND used_at IS NULL AND expires_at > ? ORDER BY expires_at`,
        )
        .all(requester.agentName, requester.instanceKey, now)
        .map((row) => this.session(row.id))
        .filter((session): session is StoredSession => session !== undefined);
    });
  }

  /** Marks a session used; true for the one caller that did it (a callback is accepted once). */
  consumeSession(id: string, now: number): boolean {
    return this.guard(() => {
      return (
        this.db.query('UPDATE oauth_sessions SET used_at = ? WHERE id = ? AND used_at IS NULL').run(now, id).changes ===
        1
      );
    });
  }

  /** Drops sessions of (app, subject) still open (logout) and every session expired for a day. */
  dropSessions(app: string, subject: string, now: number): void {
    return this.guard(() => {
      this.db.query('DELETE FROM oauth_sessions WHERE app = ? AND subject = ? AND used_at IS NULL').run(app, subject);
      this.db.query('DELETE FROM oauth_sessions WHERE expires_at < ?').run(now - 86_400_000);
    });
  }

  /** Takes the refresh lease of (app, subject) for `ttlMs` if nobody holds it; true when taken. */
  tryLease(options: { app: string; subject: string; holder: string; ttlMs: number }): boolean {
    return this.guard(() => {
      const now = Date.now();
      const result = this.db
        .query(
          `INSERT INTO oauth_leases (app, subject, holder, until) VALUES (?, ?, ?, ?)
           ON CONFLICT (app, subject) DO UPDATE SET holder = excluded.holder, until = excluded.until
           WHERE oauth_leases.until < ?`,
        )
        .run(options.app, options.subject, options.holder, now + options.ttlMs, now);
      return result.changes === 1;
    });
  }

  releaseLease(options: { app: string; subject: string; holder: string }): void {
    return this.guard(() => {
      this.db
        .query('DELETE FROM oauth_leases WHERE app = ? AND subject = ? AND holder = ?')
        .run(options.app, options.subject, options.holder);
    });
  }

  close(): void {
    this.handle.close();
  }

  private readSession(where: string, value: string): StoredSession | undefined {
    const row = this.db
      .query<Record<string, string | number | null>, [string]>(`SELECT * FROM oauth_sessions WHERE ${where}`)
      .get(value);
    if (!row) return undefined;
    const id = String(row.id);
    return {
      id,
      app: String(row.app),
      subject: String(row.subject),
      flow: String(row.flow),
      scopes: JSON.parse(String(row.scopes)),
      requester: row.requester ? JSON.parse(String(row.requester)) : null,
      shown: JSON.parse(String(row.shown)),
      secret: JSON.parse(open({ key: this.key, identity: sessionIdentity(id), sealed: String(row.sealed) })),
      expiresAt: Number(row.expires_at),
      usedAt: row.used_at === null ? null : Number(row.used_at),
      intervalSeconds: Number(row.interval_seconds),
    };
  }
}

const grantIdentity = (app: string, subject: string) => `grant:${app}:${subject}`;
const sessionIdentity = (id: string) => `session:${id}`;

function openOAuthDatabase(path: string): Database {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { create: true, readwrite: true, strict: true });
    try {
      db.run('PRAGMA busy_timeout = 10000');
      db.run('PRAGMA journal_mode = WAL');
      db.run(schema);
    } catch (cause) {
      db.close();
      throw cause;
    }
    return db;
  } catch (cause) {
    const coded = toStoreError(cause, path, 'OAuth store');
    throw coded instanceof GoondanError
      ? coded
      : new GoondanError('E_STORE_OPEN', `Cannot open the OAuth store ${path}.`, { cause });
  }
}
