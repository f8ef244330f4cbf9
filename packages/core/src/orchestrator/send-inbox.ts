import type { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentEvent } from '../agent/agent-event.ts';
import { instancePaths, listInstanceDatabases } from '../agent/instance-paths.ts';
import { InboxStore } from '../store/inbox-store.ts';
import { isInstanceWriterLockHeld } from '../store/instance-writer-lock.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { watchFileInPlace } from '../store/store-in-place.ts';

/** WAL pages (4 KiB) before a commit of the orchestrator checkpoints an instance's database (SQLite's default: 1000). */
const INBOX_AUTOCHECKPOINT_PAGES = 10_000;

/** Where the Orchestrator keeps sent events until their target has handled them (docs/orchestrator.md). */
export interface SendInbox {
  /** Stores the event in the target instance's inbox; durable when it returns. Throws when it cannot. */
  put(agent: string, instanceKey: string, event: AgentEvent): void;
  /** Stores several at once: one transaction (one commit) per target database; durable when it returns. */
  putMany(entries: readonly { agent: string; instanceKey: string; event: AgentEvent }[]): void;
  /**
   * Instances whose inbox holds events not handled yet, with their ids (a previous run's leftovers). An instance
   * whose writer lock a live process holds (an agent process of another orchestrator) is left out: its sends are that
   * orchestrator's to handle.
   */
  stored(agents: readonly string[]): { agent: string; instanceKey: string; eventIds: string[] }[];
  close(): void;
}

/**
 * The inbox in each target instance's own database (table `inbox_events`), so the instance's process finds
 * what is waiting for it whoever starts it next. Connections stay open while the Orchestrator runs.
 */
export function createInstanceSendInbox(options: { rootDir: string; stateDir?: string }): SendInbox {
  const open = new Map<string, { db: Database; inPlace: () => boolean }>();
  const databaseOf = (agentName: string, instanceKey: string, create: boolean): Database | null => {
    const key = `${agentName}/${instanceKey}`;
    const cached = open.get(key);
    if (cached?.inPlace()) return cached.db;
    // Its directory was deleted (or the file replaced) under the running orchestrator: a send stored in the file
    // still open here would be committed into nothing the instance's next process reads. The path is opened again.
    cached?.db.close();
    open.delete(key);
    const { databaseFile } = instancePaths({ ...options, agentName, instanceKey });
    if (!create && !existsSync(databaseFile)) return null;
    const db = openInstanceDatabase(databaseFile);
    // The instance's own process checkpoints its WAL as it commits; here, on the routing path, a checkpoint (an
    // fsync or two) would hold up every message. Only an inbox its process does not empty grows the WAL this far.
    db.run(`PRAGMA wal_autocheckpoint = ${INBOX_AUTOCHECKPOINT_PAGES}`);
    open.set(key, { db, inPlace: watchFileInPlace(databaseFile) });
    return db;
  };
  return {
    put(agent, instanceKey, event) {
      new InboxStore(databaseOf(agent, instanceKey, true)!).put(event);
    },
    putMany(entries) {
      const byDatabase = new Map<Database, AgentEvent[]>();
      for (const { agent, instanceKey, event } of entries) {
        const db = databaseOf(agent, instanceKey, true)!;
        const events = byDatabase.get(db);
        if (events) events.push(event);
        else byDatabase.set(db, [event]);
      }
      for (const [db, events] of byDatabase) {
        const inbox = new InboxStore(db);
        db.transaction(() => {
          for (const event of events) inbox.put(event);
        }).immediate();
      }
    },
    stored(agents) {
      const found: { agent: string; instanceKey: string; eventIds: string[] }[] = [];
      for (const file of listInstanceDatabases(options)) {
        if (!agents.includes(file.agentName)) continue;
        const db = databaseOf(file.agentName, file.instanceKey, false);
        const eventIds = db ? new InboxStore(db).pendingIds() : [];
        if (eventIds.length === 0 || isInstanceWriterLockHeld(dirname(file.databaseFile))) continue;
        found.push({ agent: file.agentName, instanceKey: file.instanceKey, eventIds });
      }
      return found;
    },
    close() {
      for (const { db } of open.values()) db.close();
      open.clear();
    },
  };
}
