import type { Database } from 'bun:sqlite';
import { GoondanError } from '../errors/goondan-error.ts';
import { redactKnownSecrets } from '../permissions/redact-known-secrets.ts';
import type { Message } from '../types.ts';
import {
  type ConversationEntry,
  type ConversationEvent,
  foldConversation,
  type TurnTaggedEvent,
} from './apply-conversation-events.ts';
import { decodeStoredJson, encodeStoredJson } from './stored-json.ts';
import { fromStoredMessage, type StoredMessage, toStoredMessage } from './stored-message.ts';
import { toStoreError } from './to-store-error.ts';

export interface ConversationStoreOptions {
  /**
   * Fold events into a new base once this many have gathered since the last one, or as many as the base holds
   * messages when that is more; 0 turns it off. Default 200. Growing with the base keeps the cost per write flat:
   * a compaction re-encodes the whole conversation, so it must not come every 200 events of a 10,000-message one.
   */
  compactAfterEvents?: number;
  /** Told when an automatic compaction fails; the write that triggered it has committed, and a later write retries. */
  onCompactionError?: (error: unknown) => void;
  /**
   * This store's process holds the instance's writer lock, so no other connection records handled events:
   * `hasEvent` may then answer "not handled" from memory (see handledIds).
   */
  soleWriter?: boolean;
}

export interface ConversationWriteOptions {
  /** The turn the change belongs to, so `messagesOfTurn` can find what a turn appended. */
  turnId?: string;
  /**
   * The AgentEvent whose input this write appends: its id is recorded in the same transaction, so a redelivered
   * event (same id) is recognised by `hasEvent` and not run twice.
   */
  eventId?: string;
}

export const DEFAULT_COMPACT_AFTER_EVENTS = 200;

/** What `compact()` did: events folded into the new base, and messages in it. */
export interface CompactionResult {
  foldedEvents: number;
  messages: number;
}

/** The end of a conversation: its last messages, and how many it holds in all. */
export interface ConversationTail {
  messages: Message[];
  total: number;
}

/** A function bun:sqlite wraps in BEGIN … COMMIT, callable with each kind of BEGIN. */
type Transaction<A extends unknown[], T> = ((...args: A) => T) & Record<'deferred' | 'immediate', (...args: A) => T>;

interface ReadState {
  entries: ConversationEntry[];
  lastSeq: number;
  folded: number;
}

interface EventRow {
  seq: number;
  type: string;
  message_id: string | null;
  turn_id: string | null;
  payload: string | null;
}

interface BaseRow {
  through_seq: number;
  entries: string;
}

function eventOf(row: EventRow): ConversationEvent | undefined {
  const message = row.payload === null ? undefined : fromStoredMessage(decodeStoredJson(row.payload) as StoredMessage);
  if (row.type === 'append' && message !== undefined) return { type: 'append', message };
  if (row.type === 'replace' && message !== undefined && row.message_id !== null) {
    return { type: 'replace', targetId: row.message_id, message };
  }
  if (row.type === 'remove' && row.message_id !== null) return { type: 'remove', targetId: row.message_id };
  if (row.type === 'truncate') return { type: 'truncate' };
  return undefined;
}

/**
 * The most one message may take as stored (characters of its row's JSON). SQLite refuses a value over 1,000,000,000
 * bytes (SQLITE_TOOBIG, which read as a bare "string or blob too big"), and the conversation's base, which holds
 * every message in one value, must stay under that too; no message a running agent makes comes near it (tool outputs
 * are capped, `gdn serve` takes 1 MiB bodies, `gdn run` and `gdn chat` 16 MiB of standard input).
 */
export const MAX_STORED_MESSAGE_CHARS = 64 * 1024 * 1024;

/** The row payload of a message; one that cannot be stored is refused naming it (E_STORE_VALUE_INVALID). */
function encodeMessage(message: Message, type: 'append' | 'replace'): string {
  const named = () => `Message ${JSON.stringify(String(message.id).slice(0, 200))} (${type})`;
  let payload: string;
  try {
    payload = encodeStoredJson(redactKnownSecrets(toStoredMessage(message)));
  } catch (error) {
    if (!(error instanceof GoondanError) || error.code !== 'E_STORE_VALUE_INVALID') throw error;
    throw new GoondanError('E_STORE_VALUE_INVALID', `${named()}: ${error.message} Nothing of this write was kept.`);
  }
  if (payload.length > MAX_STORED_MESSAGE_CHARS) {
    throw new GoondanError(
      'E_STORE_VALUE_INVALID',
      `${named()} is ${payload.length.toLocaleString('en-US')} characters as stored, more than the ${MAX_STORED_MESSAGE_CHARS.toLocaleString('en-US')} one message may take. Nothing of this write was kept.`,
      { suggestion: 'Keep large content in a file and put its path in the message.' },
    );
  }
  return payload;
}

/**
 * The event-sourced conversation of one agent instance: a base snapshot plus the events written since, each
 * committed before the call returns, so a process killed at any point keeps everything already written.
 *
 * @example
 * const conversation = new ConversationStore(openInstanceDatabase(file));
 * conversation.append(message, { turnId });
 * const messages = conversation.load(); // after a restart: the same messages
 */
export class ConversationStore {
  private readonly compactAfterEvents: number;
  private readonly onCompactionError: ((error: unknown) => void) | undefined;
  private pendingEvents: number;
  /**
   * Messages in the latest base: null until first needed, then read from the database (a store opened on a long
   * conversation must not fold it after the first 200 events, in every new process) and kept by each compaction.
   */
  private baseMessages: number | null = null;
  private readonly writeMany: Transaction<[readonly ConversationEvent[], string | null, string | null], void>;
  private readonly readState: Transaction<[], ReadState>;
  private readonly readTail: Transaction<[number], ConversationTail>;
  private readonly compactNow: Transaction<[], CompactionResult>;
  private readonly runWrite: Transaction<[() => void], void>;
  private readonly soleWriter: boolean;
  /**
   * With soleWriter: every id handled_events may hold (a superset: the id of a write that rolled back stays), read
   * at the first `hasEvent` and added to by this store's writes. An id not in it was never recorded, so the usual
   * answer (a new event) reads nothing: a read of the database takes the WAL read locks, several µs on every turn
   * (docs/performance.md). An id in it is checked in the database.
   */
  private handledIds: Set<string> | null = null;

  constructor(
    private readonly db: Database,
    options: ConversationStoreOptions = {},
  ) {
    this.compactAfterEvents = Math.max(0, options.compactAfterEvents ?? DEFAULT_COMPACT_AFTER_EVENTS);
    this.onCompactionError = options.onCompactionError;
    this.soleWriter = options.soleWriter === true;
    this.writeMany = db.transaction(
      (events: readonly ConversationEvent[], turnId: string | null, eventId: string | null) =>
        this.writeUnlocked(events, turnId, eventId),
    );
    // One read transaction: a compaction by another connection cannot slip between the base and the events.
    this.readState = db.transaction(() => this.readUnlocked());
    this.readTail = db.transaction((limit: number) => this.tailUnlocked(limit));
    this.compactNow = db.transaction(() => this.compactUnlocked());
    this.runWrite = db.transaction((write: () => void) => write());
    this.pendingEvents = this.eventCountSinceBase();
  }

  append(message: Message, options: ConversationWriteOptions = {}): void {
    this.record([{ type: 'append', message }], options);
  }

  /** Appends all messages in one transaction: after a crash either all of them are there or none. */
  appendMany(messages: readonly Message[], options: ConversationWriteOptions = {}): void {
    this.record(
      messages.map((message) => ({ type: 'append', message })),
      options,
    );
  }

  replace(targetId: string, message: Message, options: ConversationWriteOptions = {}): void {
    this.record([{ type: 'replace', targetId, message }], options);
  }

  remove(targetId: string, options: ConversationWriteOptions = {}): void {
    this.record([{ type: 'remove', targetId }], options);
  }

  /** Clears the conversation (an event like any other; compaction later drops what it cleared). */
  truncate(options: ConversationWriteOptions = {}): void {
    this.record([{ type: 'truncate' }], options);
  }

  /** Writes events in one transaction, in order. */
  record(events: readonly ConversationEvent[], options: ConversationWriteOptions = {}): void {
    if (events.length === 0) return;
    const turnId = options.turnId ?? null;
    try {
      if (events.length === 1 && options.eventId === undefined) this.insert(events[0]!, turnId);
      // Inside the caller's transaction (AgentInstance.commit) a savepoint of our own would only add statements.
      else if (this.db.inTransaction) this.writeUnlocked(events, turnId, options.eventId ?? null);
      else this.writeMany.immediate(events, turnId, options.eventId ?? null);
    } catch (error) {
      // A full disk, a file gone read-only: E_STORE_FULL or E_STORE_OPEN naming the file, not a bare SQLiteError.
      throw toStoreError(error, this.db.filename);
    }
    this.pendingEvents += events.length;
    if (this.compactAfterEvents > 0 && this.pendingEvents >= this.compactAfterEvents) {
      this.baseMessages ??= this.storedBaseMessages();
      if (this.pendingEvents >= Math.max(this.compactAfterEvents, this.baseMessages)) this.compactQuietly();
    }
  }

  /**
   * Runs `write` in one transaction on this store's database (writes of other stores on it included): the agent
   * commits a step's messages, spans and audit rows at once. Inside another transaction it joins that one: a
   * failure fails the whole (bun:sqlite rolls it back when the error leaves it).
   */
  inTransaction(write: () => void): void {
    try {
      if (this.db.inTransaction) write();
      else this.runWrite.immediate(write);
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  /** True when a write recorded this event id (its turn appended its input): a redelivery must not run again. */
  hasEvent(eventId: string): boolean {
    if (this.soleWriter) {
      this.handledIds ??= this.readHandledIds();
      if (!this.handledIds.has(eventId)) return false;
    }
    return (
      this.db
        .query<{ one: number }, [string]>('SELECT 1 AS one FROM handled_events WHERE event_id = ?')
        .get(eventId) !== null
    );
  }

  /** Keeps the newest `keep` handled event ids (redeliveries come soon after a crash, not months later). */
  pruneHandledEvents(keep: number): void {
    this.db
      .query<unknown, [number]>(
        'DELETE FROM handled_events WHERE seq <= (SELECT coalesce(max(seq), 0) FROM handled_events) - ?',
      )
      .run(Math.max(0, Math.floor(keep)));
    // Read again now, off the path of a turn, so the ids pruned do not pile up in memory (inside a transaction,
    // which may yet roll back, at the next hasEvent instead).
    if (this.handledIds) this.handledIds = this.db.inTransaction ? null : this.readHandledIds();
  }

  private readHandledIds(): Set<string> {
    const rows = this.db.query<{ event_id: string }, []>('SELECT event_id FROM handled_events').all();
    return new Set(rows.map((row) => row.event_id));
  }

  /** The conversation now: the latest base with every later event applied in order. */
  load(): Message[] {
    return this.loadEntries().map((entry) => entry.message);
  }

  /**
   * The last `limit` messages of the conversation (what `load().slice(-limit)` returns) and how many it holds,
   * without decoding the rest: SQLite walks the base (json_each) and hands back only its last entries and those
   * the events since touch, so showing the last page of a 100,000-message conversation costs a fraction of `load()`
   * in time and almost nothing in memory. The same rules apply (first write wins, replace keeps the position).
   */
  tail(limit: number): ConversationTail {
    try {
      return this.readTail.deferred(Math.max(0, Math.floor(limit)));
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  /** The turn a message was appended in, or null (appended outside a turn, or unknown). */
  turnIdOf(messageId: string): string | null {
    const row = this.db
      .query<{ turn_id: string | null }, [string]>(
        "SELECT turn_id FROM conversation_events WHERE message_id = ? AND type = 'append' ORDER BY seq DESC LIMIT 1",
      )
      .get(messageId);
    return row?.turn_id ?? null;
  }

  /** Messages of the current conversation that were appended in `turnId`, in conversation order. */
  messagesOfTurn(turnId: string): Message[] {
    return this.loadEntries()
      .filter((entry) => entry.turnId === turnId)
      .map((entry) => entry.message);
  }

  /** Events written since the latest base (what `load` replays). */
  eventCountSinceBase(): number {
    const base = this.db
      .query<{ seq: number }, []>('SELECT through_seq AS seq FROM conversation_bases ORDER BY id DESC LIMIT 1')
      .get();
    const row = this.db
      .query<{ count: number }, [number]>('SELECT COUNT(*) AS count FROM conversation_events WHERE seq > ?')
      .get(base?.seq ?? 0);
    return row?.count ?? 0;
  }

  /**
   * Folds every event into a new base and deletes the folded events and older bases, in one transaction:
   * a crash during compaction leaves the previous base and events in place. `load()` returns the same before
   * and after.
   */
  compact(): CompactionResult {
    let result: CompactionResult;
    try {
      result = this.compactNow.immediate();
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
    this.pendingEvents = 0;
    this.baseMessages = result.messages;
    return result;
  }

  /**
   * How many messages the latest base holds, counted by SQLite without decoding it (about 70 ms for 100,000
   * messages, once per store); 0 when there is none or it cannot be told (the schedule is then the plain count).
   */
  private storedBaseMessages(): number {
    try {
      const row = this.db
        .query<{ messages: number | null }, []>(
          'SELECT json_array_length(entries) AS messages FROM conversation_bases ORDER BY id DESC LIMIT 1',
        )
        .get();
      return row?.messages ?? 0;
    } catch {
      return 0;
    }
  }

  private writeUnlocked(events: readonly ConversationEvent[], turnId: string | null, eventId: string | null): void {
    for (const event of events) this.insert(event, turnId);
    if (eventId !== null) {
      this.handledIds?.add(eventId);
      this.db
        .query<unknown, [string, string | null, number]>(
          'INSERT OR IGNORE INTO handled_events (event_id, turn_id, created_at) VALUES (?, ?, ?)',
        )
        .run(eventId, turnId, Date.now());
    }
  }

  private insert(event: ConversationEvent, turnId: string | null): void {
    const messageId = event.type === 'append' ? event.message.id : event.type === 'truncate' ? null : event.targetId;
    const payload =
      event.type === 'append' || event.type === 'replace' ? encodeMessage(event.message, event.type) : null;
    this.db
      .query<unknown, [string, string | null, string | null, string | null, number]>(
        'INSERT INTO conversation_events (type, message_id, turn_id, payload, created_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(event.type, messageId, turnId, payload, Date.now());
  }

  private loadEntries(): ConversationEntry[] {
    try {
      return this.readState.deferred().entries;
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  private tailUnlocked(limit: number): ConversationTail {
    const base = this.db
      .query<{ id: number; through_seq: number; messages: number }, []>(
        'SELECT id, through_seq, json_array_length(entries) AS messages FROM conversation_bases ORDER BY id DESC LIMIT 1',
      )
      .get();
    const events = this.eventsSince(base?.through_seq ?? 0);
    const lastTruncate = events.findLastIndex(({ event }) => event.type === 'truncate');
    let entries: ConversationEntry[];
    let untouched = 0;
    if (base === null || lastTruncate >= 0) {
      // Nothing of the base survives a truncate: the events after it are the whole conversation.
      entries = foldConversation([], lastTruncate >= 0 ? events.slice(lastTruncate + 1) : events);
    } else {
      // The base entries that can end up in the last `limit`: as many more than `limit` as events may drop, plus
      // every entry an event names (an append of an id already there is ignored; a replace or remove acts on it).
      const named = new Set<string>();
      let dropping = 0;
      for (const { event } of events) {
        if (event.type === 'append') named.add(event.message.id);
        else if (event.type === 'remove' || event.type === 'replace') {
          named.add(event.targetId);
          if (event.type === 'replace') named.add(event.message.id);
          dropping += 1;
        }
      }
      const from = Math.max(0, base.messages - limit - dropping);
      const rows = this.db
        .query<{ value: string }, [number, number, string]>(
          `SELECT e.value FROM conversation_bases b, json_each(b.entries) e
           WHERE b.id = ? AND (e.key >= ? OR json_extract(e.value, '$.message.id') IN (SELECT value FROM json_each(?)))
           ORDER BY e.key`,
        )
        .all(base.id, from, JSON.stringify([...named]));
      const baseEntries = rows.map((row) => {
        const entry = decodeStoredJson(row.value) as { turnId: string | null; message: StoredMessage };
        return { message: fromStoredMessage(entry.message), turnId: entry.turnId };
      });
      // Entries before `from` that no event names stay as they are, before all of these.
      untouched = base.messages - rows.length;
      entries = foldConversation(baseEntries, events);
    }
    const last = limit === 0 ? [] : entries.slice(-limit);
    return { messages: last.map((entry) => entry.message), total: untouched + entries.length };
  }

  private eventsSince(seq: number): TurnTaggedEvent[] {
    const rows = this.db
      .query<EventRow, [number]>(
        'SELECT seq, type, message_id, turn_id, payload FROM conversation_events WHERE seq > ? ORDER BY seq',
      )
      .all(seq);
    const events: TurnTaggedEvent[] = [];
    for (const row of rows) {
      const event = eventOf(row);
      if (event !== undefined) events.push({ event, turnId: row.turn_id });
    }
    return events;
  }

  private readUnlocked(): ReadState {
    const base = this.db
      .query<BaseRow, []>('SELECT through_seq, entries FROM conversation_bases ORDER BY id DESC LIMIT 1')
      .get();
    const baseEntries =
      base === null ? [] : (decodeStoredJson(base.entries) as { turnId: string | null; message: StoredMessage }[]);
    const rows = this.db
      .query<EventRow, [number]>(
        'SELECT seq, type, message_id, turn_id, payload FROM conversation_events WHERE seq > ? ORDER BY seq',
      )
      .all(base?.through_seq ?? 0);
    const events: TurnTaggedEvent[] = [];
    for (const row of rows) {
      const event = eventOf(row);
      if (event !== undefined) events.push({ event, turnId: row.turn_id });
    }
    const entries = foldConversation(
      baseEntries.map((entry) => ({ message: fromStoredMessage(entry.message), turnId: entry.turnId })),
      events,
    );
    return { entries, lastSeq: rows.at(-1)?.seq ?? base?.through_seq ?? 0, folded: rows.length };
  }

  private compactUnlocked(): CompactionResult {
    const { entries, lastSeq, folded } = this.readUnlocked();
    if (folded === 0) return { foldedEvents: 0, messages: entries.length };
    const stored = entries.map((entry) => ({ turnId: entry.turnId, message: toStoredMessage(entry.message) }));
    this.db
      .query<unknown, [number, string, number]>(
        'INSERT INTO conversation_bases (through_seq, entries, created_at) VALUES (?, ?, ?)',
      )
      .run(lastSeq, encodeStoredJson(stored), Date.now());
    this.db.query<unknown, [number]>('DELETE FROM conversation_events WHERE seq <= ?').run(lastSeq);
    this.db
      .query<unknown, []>('DELETE FROM conversation_bases WHERE id < (SELECT MAX(id) FROM conversation_bases)')
      .run();
    return { foldedEvents: folded, messages: entries.length };
  }

  private compactQuietly(): void {
    try {
      this.compact();
    } catch (error) {
      try {
        this.onCompactionError?.(error);
      } catch {
        // An observer must not turn a committed write into a failure.
      }
    }
  }
}
