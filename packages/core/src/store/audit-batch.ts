import type { Database } from 'bun:sqlite';
import type { AuditEntry } from '../permissions/permission-types.ts';
import type { AuditStore } from './audit-store.ts';
import { toStoreError } from './to-store-error.ts';

export interface AuditBatchOptions {
  /** Longest an entry waits in memory when nothing else commits first. Default 5 ms. */
  flushAfterMs?: number;
  /** Told when a timed flush fails (the entries stay queued for the next one). */
  onError?: (error: unknown) => void;
}

export const DEFAULT_AUDIT_FLUSH_MS = 5;

/**
 * Audit rows off the tool-call path (docs/performance.md): `append` only queues the entry; the rows are redacted
 * and written in one transaction by `flush`, by `commitWith` (in the same transaction as the caller's own writes:
 * the agent commits a step's tool results this way, so no result reaches the model before its audit row is on
 * disk), or at the latest `flushAfterMs` after the first queued entry.
 *
 * @example
 * const audit = new AuditBatch(db, new AuditStore(db));
 * executor.execute(call, { catalog, scope: { ...scope, audit: (entry) => audit.append(entry) } });
 * audit.commitWith(() => conversation.appendMany(results)); // audit rows and results in one commit
 */
export class AuditBatch {
  private queued: AuditEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly flushAfterMs: number;
  private readonly writeAll: (entries: readonly AuditEntry[], then?: () => void) => void;
  private readonly store: AuditStore;

  constructor(
    db: Database,
    store: AuditStore,
    private readonly options: AuditBatchOptions = {},
  ) {
    this.store = store;
    this.flushAfterMs = Math.max(0, options.flushAfterMs ?? DEFAULT_AUDIT_FLUSH_MS);
    const transaction = db.transaction((entries: readonly AuditEntry[], then?: () => void) => {
      for (const entry of entries) store.append(entry);
      then?.();
    });
    this.writeAll = (entries, then) => {
      try {
        transaction.immediate(entries, then);
      } catch (error) {
        // The COMMIT itself can fail (a full disk): E_STORE_FULL or E_STORE_OPEN naming the file, as a failed statement inside is.
        throw toStoreError(error, db.filename);
      }
    };
  }

  /** Which of `toolCallIds` of turn `turnId` have a row written or queued. */
  loggedCalls(toolCallIds: readonly string[], turnId: string | null): Set<string> {
    const logged = this.store.loggedCalls(toolCallIds, turnId);
    for (const entry of this.queued) {
      if (entry.turnId === turnId && toolCallIds.includes(entry.toolCallId)) logged.add(entry.toolCallId);
    }
    return logged;
  }

  /** Entries queued and not yet written. */
  get pending(): number {
    return this.queued.length;
  }

  append(entry: AuditEntry): void {
    this.queued.push(entry);
    this.timer ??= setTimeout(() => this.flushQuietly(), this.flushAfterMs);
  }

  /** Writes every queued entry in one transaction. On failure they stay queued and the error is thrown. */
  flush(): void {
    this.commitWith(undefined);
  }

  /**
   * Writes the queued entries and then runs `write` in the same transaction: both commit, or neither does (the
   * entries then stay queued).
   */
  commitWith(write: (() => void) | undefined): void {
    this.clearTimer();
    const entries = this.queued;
    if (entries.length === 0) {
      write?.();
      return;
    }
    this.queued = [];
    try {
      this.writeAll(entries, write);
    } catch (error) {
      this.queued = entries.concat(this.queued);
      throw error;
    }
  }

  /** Flushes what is queued and stops the timer (before the database closes). */
  close(): void {
    this.flushQuietly();
    this.clearTimer();
  }

  private flushQuietly(): void {
    this.timer = undefined;
    try {
      this.flush();
    } catch (error) {
      try {
        this.options.onError?.(error);
      } catch {
        // An observer cannot make a failed flush worse.
      }
    }
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
