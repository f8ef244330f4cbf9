import type { Database } from 'bun:sqlite';
import { statSync } from 'node:fs';
import { type InstanceDatabaseFile, listInstanceDatabases, openInstanceDatabase } from '@goondan/core';

/** What a live trace view is told: the trace's stored state changed (and once on subscribing), or keep-alive. */
export type TraceChange = { type: 'change'; version: string } | { type: 'beat' };

type Listener = (change: TraceChange) => void;

interface Watch {
  listeners: Set<Listener>;
  /** The trace's fingerprint in each instance database that holds some of it. */
  parts: Map<string, string>;
  version: string;
}

/** How often the databases are looked at while any live view is open. */
export const LIVE_POLL_MS = 400;
/** A keep-alive comment this often (in polls), so proxies keep an idle stream open. */
const BEAT_EVERY = 25;
/** A file written this recently is read again at the next poll even when its size and time look the same. */
const FRESH_MS = 1_000;

/**
 * Tells live trace views (GET /console/api/traces/ID/live) when a trace's stored spans or approvals change. One
 * poll serves every view: it lists the instance databases and stats each (the file and its WAL, which every commit
 * writes), and opens only those written since the last poll, reading there the traces being watched. So N open
 * views cost one poll, and a poll of a bundle with many instances, few of them busy, opens few databases.
 */
export class TraceChanges {
  private readonly watches = new Map<string, Watch>();
  /** Each database's signature (sizes and times of the file and its WAL) when it was last read. */
  private readonly seen = new Map<string, { signature: string; fresh: boolean }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private polls = 0;

  constructor(private readonly rootDir: () => string) {}

  /** Calls `listener` with the trace's version now, then at every change; returns the unsubscribe. */
  subscribe(traceId: string, listener: Listener): () => void {
    let watch = this.watches.get(traceId);
    if (!watch) {
      watch = { listeners: new Set(), parts: new Map(), version: '' };
      this.watches.set(traceId, watch);
      const first = this.watches.size === 1;
      for (const file of listInstanceDatabases({ rootDir: this.rootDir() })) {
        // With no other trace watched, this read stands for all of them: the first poll need not read it again.
        if (first) this.remember(file.databaseFile, Date.now());
        this.read(file, [[traceId, watch]]);
      }
      watch.version = versionOf(watch);
    }
    watch.listeners.add(listener);
    this.timer ??= setInterval(() => this.poll(), LIVE_POLL_MS);
    this.timer.unref?.();
    tell(listener, { type: 'change', version: watch.version });
    return () => {
      watch.listeners.delete(listener);
      if (watch.listeners.size === 0 && this.watches.get(traceId) === watch) this.watches.delete(traceId);
      if (this.watches.size === 0) this.stop();
    };
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.seen.clear();
  }

  private poll(): void {
    try {
      const now = Date.now();
      const files = listInstanceDatabases({ rootDir: this.rootDir() });
      const present = new Set(files.map((file) => file.databaseFile));
      for (const path of this.seen.keys()) {
        if (present.has(path)) continue;
        this.seen.delete(path);
        for (const watch of this.watches.values()) watch.parts.delete(path);
      }
      const watched = [...this.watches];
      for (const file of files) {
        const before = this.seen.get(file.databaseFile);
        if (!this.remember(file.databaseFile, now) && !before?.fresh) continue;
        this.read(file, watched);
      }
      const beat = ++this.polls % BEAT_EVERY === 0;
      for (const watch of this.watches.values()) {
        const version = versionOf(watch);
        const changed = version !== watch.version;
        watch.version = version;
        if (!changed && !beat) continue;
        const change: TraceChange = changed ? { type: 'change', version } : { type: 'beat' };
        for (const listener of watch.listeners) tell(listener, change);
      }
    } catch {
      // The state directory moved or vanished for a moment: the next poll looks again.
    }
  }

  /**
   * Records the database's signature; true when it changed. Taken before reading: a commit while it is read
   * changes it again, and is read at the next poll. A file written within FRESH_MS is read again at the next poll
   * too, since two commits within one tick of the file system's clock that leave the WAL's size alone look alike.
   */
  private remember(path: string, now: number): boolean {
    const { signature, modifiedAt } = signatureOf(path);
    const changed = this.seen.get(path)?.signature !== signature;
    this.seen.set(path, { signature, fresh: now - modifiedAt < FRESH_MS });
    return changed;
  }

  /** Reads the fingerprint of each watched trace in one database; one that cannot be read is left as it was. */
  private read(file: InstanceDatabaseFile, watched: [string, Watch][]): void {
    if (watched.length === 0) return;
    let db: Database | undefined;
    try {
      db = openInstanceDatabase(file.databaseFile, { busyTimeoutMs: 1000, forReading: true });
      for (const [traceId, watch] of watched) {
        const part = fingerprint(db, traceId);
        if (part === null) watch.parts.delete(file.databaseFile);
        else watch.parts.set(file.databaseFile, part);
      }
    } catch {
      // Busy for a moment (being written, so read again), or broken (the views list it as a problem).
    } finally {
      db?.close();
    }
  }
}

function tell(listener: Listener, change: TraceChange): void {
  try {
    listener(change);
  } catch {
    // A view that went away cannot break the others (STYLE habit 8).
  }
}

/** Sizes and modification times of the database and its WAL (where every commit goes first). */
function signatureOf(path: string): { signature: string; modifiedAt: number } {
  const parts: string[] = [];
  let modifiedAt = 0;
  for (const file of [path, `${path}-wal`]) {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat) {
      parts.push('-');
      continue;
    }
    parts.push(`${stat.ino}:${stat.size}:${stat.mtimeMs}`);
    modifiedAt = Math.max(modifiedAt, stat.mtimeMs);
  }
  return { signature: parts.join('|'), modifiedAt };
}

/** The trace's spans and approvals in one database, or null when it holds none of them. */
function fingerprint(db: Database, traceId: string): string | null {
  const spans = db
    .query<{ n: number; ended: number | null; running: number | null }, [string]>(
      "SELECT COUNT(*) AS n, MAX(ended_at) AS ended, SUM(status = 'running') AS running FROM trace_spans WHERE trace_id = ?",
    )
    .get(traceId);
  const approvals = db
    .query<{ n: number; decided: number | null }, [string]>(
      'SELECT COUNT(*) AS n, MAX(decided_at) AS decided FROM approvals WHERE trace_id = ?',
    )
    .get(traceId);
  if (!spans?.n && !approvals?.n) return null;
  return `${spans?.n}:${spans?.ended}:${spans?.running}:${approvals?.n}:${approvals?.decided}`;
}

function versionOf(watch: Watch): string {
  return [...watch.parts]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, part]) => part)
    .join('|');
}
