import type { Database } from 'bun:sqlite';
import type { AgentEvent } from '../agent/agent-event.ts';

/**
 * The inbox of one agent instance: events sent to it (agents__send) that were accepted and not handled yet, in
 * the order they were accepted. The Orchestrator puts each one here before routing it; the instance's process
 * removes it once its turn has ended. What a run did not get to stays, and the next process of the instance
 * handles it first. Any process may put (SQLite serialises the writes); only the writer of the instance takes.
 *
 * @example
 * new InboxStore(db).put(event); // durable before it returns
 * for (const event of inbox.pending()) ...; inbox.done(event.id); // or inbox.done(...handledIds)
 */
export class InboxStore {
  constructor(private readonly db: Database) {}

  /** Stores an event; putting one already there (same id) changes nothing. */
  put(event: AgentEvent): void {
    this.db
      .query<unknown, [string, string, number]>(
        'INSERT OR IGNORE INTO inbox_events (event_id, payload, created_at) VALUES (?, ?, ?)',
      )
      .run(event.id, JSON.stringify(event), Date.now());
  }

  /** Events not handled yet, oldest first. */
  pending(): AgentEvent[] {
    return this.db
      .query<{ payload: string }, []>('SELECT payload FROM inbox_events ORDER BY seq')
      .all()
      .map((row) => JSON.parse(row.payload) as AgentEvent);
  }

  /** The ids of events not handled yet, oldest first. */
  pendingIds(): string[] {
    return this.db
      .query<{ event_id: string }, []>('SELECT event_id FROM inbox_events ORDER BY seq')
      .all()
      .map((row) => row.event_id);
  }

  /** The events' turns have ended: they leave the inbox, in one transaction (one commit). Unknown ids are ignored. */
  done(...eventIds: string[]): void {
    const remove = this.db.query<unknown, [string]>('DELETE FROM inbox_events WHERE event_id = ?');
    if (eventIds.length === 1) remove.run(eventIds[0]!);
    else if (eventIds.length > 1)
      this.db
        .transaction(() => {
          for (const eventId of eventIds) remove.run(eventId);
        })
        .immediate();
  }
}
