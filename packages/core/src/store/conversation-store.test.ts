import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { forgetSecretValues, rememberSecretValue } from '../permissions/secret-registry.ts';
import type { Message } from '../types.ts';
import { ConversationStore, MAX_STORED_MESSAGE_CHARS } from './conversation-store.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { createTempDirs, textMessage } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

function freshStore(options: ConstructorParameters<typeof ConversationStore>[1] = { compactAfterEvents: 0 }) {
  const path = join(temp.make(), 'instance.db');
  const db = openInstanceDatabase(path);
  return { path, db, store: new ConversationStore(db, options) };
}

function ids(messages: Message[]): string[] {
  return messages.map((message) => message.id);
}

/** An assistant message with AI SDK content parts of every awkward kind. */
function richMessage(): Message {
  return {
    id: 'asst-1',
    data: {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Here is the chart.', providerOptions: { openai: { itemId: 'it_1' } } },
        { type: 'reasoning', text: 'thinking…' },
        { type: 'image', image: new Uint8Array([0, 1, 2, 250, 255]), mediaType: 'image/png' },
        { type: 'file', data: new URL('https://example.com/a.pdf'), mediaType: 'application/pdf' },
        {
          type: 'tool-call',
          toolCallId: 'call_1',
          toolName: 'file-system__read',
          input: { path: 'a.txt', nested: { list: [1, 2.5, null, true, '한국어'] } },
        },
      ],
    },
    metadata: { usage: { inputTokens: 10, outputTokens: 3 }, tags: ['a', 'b'], flag: false, nothing: null },
    createdAt: new Date('2026-02-12T01:02:03.456Z'),
    source: { type: 'assistant', stepId: 'step-1' },
  };
}

function toolMessage(): Message {
  return {
    id: 'tool-1',
    data: {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'file-system__read',
          output: { type: 'json', value: { $date: 'not a tag, just a key', when: '2026' } },
        },
      ],
    },
    metadata: {},
    createdAt: new Date(1_700_000_000_123),
    source: { type: 'tool', toolCallId: 'call_1', toolName: 'file-system__read' },
  };
}

describe('ConversationStore events', () => {
  test('append round-trips messages exactly: Date, metadata, source, nested content parts and bytes', () => {
    const { store } = freshStore();
    const rich = richMessage();
    const tool = toolMessage();
    store.append(rich);
    store.append(tool);
    const loaded = store.load();
    expect(loaded).toEqual([rich, tool]);
    expect(loaded[0]!.createdAt).toBeInstanceOf(Date);
    expect(loaded[0]!.createdAt.getTime()).toBe(rich.createdAt.getTime());
    const parts = loaded[0]!.data.content as { image?: unknown; data?: unknown }[];
    expect(parts[2]!.image).toBeInstanceOf(Uint8Array);
    expect(parts[3]!.data).toBeInstanceOf(URL);
    expect(String(parts[3]!.data)).toBe('https://example.com/a.pdf');
    expect([...(parts[2]!.image as Uint8Array)]).toEqual([0, 1, 2, 250, 255]);
  });

  test('replace swaps a message in place, keeping its position', () => {
    const { store } = freshStore();
    store.appendMany([textMessage('a', 'one'), textMessage('b', 'two'), textMessage('c', 'three')]);
    store.replace('b', textMessage('b', 'TWO'));
    expect(store.load().map((message) => message.data.content)).toEqual(['one', 'TWO', 'three']);
  });

  test('replace may give the message a new id', () => {
    const { store } = freshStore();
    store.appendMany([textMessage('a', 'one'), textMessage('b', 'two'), textMessage('c', 'three')]);
    store.replace('b', textMessage('summary', 'two, summarised'));
    expect(ids(store.load())).toEqual(['a', 'summary', 'c']);
  });

  test('remove drops one message', () => {
    const { store } = freshStore();
    store.appendMany([textMessage('a', 'one'), textMessage('b', 'two')]);
    store.remove('a');
    expect(ids(store.load())).toEqual(['b']);
  });

  test('truncate clears everything before it, and appends after it count', () => {
    const { store } = freshStore();
    store.appendMany([textMessage('a', 'one'), textMessage('b', 'two')]);
    store.truncate();
    expect(store.load()).toEqual([]);
    store.append(textMessage('c', 'three'));
    expect(ids(store.load())).toEqual(['c']);
  });

  test('replace or remove of an unknown id is ignored', () => {
    const { store } = freshStore();
    store.append(textMessage('a', 'one'));
    store.replace('ghost', textMessage('ghost', 'boo'));
    store.remove('nobody');
    expect(ids(store.load())).toEqual(['a']);
  });

  test('appending an id already present is ignored, so replaying an append after a crash is harmless', () => {
    const { store } = freshStore();
    store.append(textMessage('a', 'first'));
    store.append(textMessage('a', 'again'));
    expect(store.load().map((message) => message.data.content)).toEqual(['first']);
  });

  test('every write is one event row, appendMany included', () => {
    const { store } = freshStore();
    store.append(textMessage('a', 'one'));
    store.appendMany([textMessage('b', 'two'), textMessage('c', 'three')]);
    store.remove('a');
    expect(store.eventCountSinceBase()).toBe(4);
  });

  test('appendMany is all or nothing', () => {
    const { store } = freshStore();
    const cyclic = textMessage('bad', 'x');
    (cyclic.metadata as Record<string, unknown>).self = cyclic.metadata;
    expect(() => store.appendMany([textMessage('ok', 'fine'), cyclic])).toThrow(/cyclic/);
    expect(store.load()).toEqual([]);
    expect(store.eventCountSinceBase()).toBe(0);
  });

  test('a message nested too deep to store is refused with E_STORE_VALUE_INVALID naming it; nothing is written', () => {
    const { store } = freshStore();
    store.append(textMessage('before', 'kept'));
    const nest = (levels: number) => {
      let value: unknown = 'bottom';
      for (let level = 0; level < levels; level += 1) value = { inner: value };
      return value;
    };
    const deep = textMessage('deep', 'x');
    (deep.metadata as Record<string, unknown>).nested = nest(20_000);
    let thrown: unknown;
    try {
      store.appendMany([textMessage('same-write', 'lost with it'), deep]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GoondanError);
    expect((thrown as GoondanError).code).toBe('E_STORE_VALUE_INVALID');
    expect((thrown as GoondanError).message).toContain('"deep"');
    expect((thrown as GoondanError).message).toContain('1000 levels');
    expect(() => store.replace('before', deep)).toThrow(/deeper than 1000/);
    expect(ids(store.load())).toEqual(['before']);
    // Just under the limit is stored and read back whole.
    const nearLimit = textMessage('near', 'y');
    (nearLimit.metadata as Record<string, unknown>).nested = nest(990);
    store.append(nearLimit);
    expect(store.load()[1]!.metadata).toEqual(nearLimit.metadata);
  });

  test('a message larger than one may take as stored is refused naming it and its size; nothing is written', () => {
    const { store } = freshStore();
    store.append(textMessage('before', 'kept'));
    const huge = textMessage('huge', 'z'.repeat(MAX_STORED_MESSAGE_CHARS));
    let thrown: unknown;
    try {
      store.appendMany([textMessage('same-write', 'lost with it'), huge]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GoondanError);
    expect((thrown as GoondanError).code).toBe('E_STORE_VALUE_INVALID');
    expect((thrown as GoondanError).message).toMatch(/^Message "huge" \(append\) is 67,108,9\d\d characters as stored/);
    expect((thrown as GoondanError).suggestion).toContain('file');
    expect(() => store.replace('before', huge)).toThrow(/"huge" \(replace\) is/);
    expect(ids(store.load())).toEqual(['before']);
    // A message that fits is stored and read back whole, and the store goes on.
    const large = textMessage('large', 'y'.repeat(MAX_STORED_MESSAGE_CHARS - 1_000));
    store.append(large);
    expect(store.load()[1]!.data.content).toBe(large.data.content);
  });

  test('messagesOfTurn finds what a turn appended, in its current form', () => {
    const { store } = freshStore();
    store.append(textMessage('u1', 'hi'), { turnId: 't1' });
    store.appendMany([textMessage('a1', 'hello'), textMessage('a2', 'there')], { turnId: 't1' });
    store.append(textMessage('u2', 'again'), { turnId: 't2' });
    store.replace('a2', textMessage('a2', 'THERE'), { turnId: 't2' });
    expect(store.messagesOfTurn('t1').map((message) => message.data.content)).toEqual(['hi', 'hello', 'THERE']);
    expect(ids(store.messagesOfTurn('t2'))).toEqual(['u2']);
  });
});

describe('ConversationStore persistence and compaction', () => {
  test('load after reopening the file returns the same conversation', () => {
    const { path, db, store } = freshStore();
    store.append(richMessage(), { turnId: 't1' });
    store.append(toolMessage(), { turnId: 't1' });
    store.replace('asst-1', { ...richMessage(), metadata: { edited: true } });
    const before = store.load();
    db.close();
    const reopened = openInstanceDatabase(path);
    const again = new ConversationStore(reopened);
    expect(again.load()).toEqual(before);
    expect(ids(again.messagesOfTurn('t1'))).toEqual(['asst-1', 'tool-1']);
    reopened.close();
  });

  test('compaction keeps load() the same and deletes the folded events', () => {
    const { db, store } = freshStore();
    for (let index = 0; index < 20; index++) store.append(textMessage(`m${index}`, `text ${index}`), { turnId: 't' });
    store.remove('m3');
    store.replace('m5', richMessage());
    const before = store.load();
    expect(store.compact()).toEqual({ foldedEvents: 22, messages: 19 });
    expect(store.eventCountSinceBase()).toBe(0);
    expect(db.query('SELECT COUNT(*) AS n FROM conversation_events').get()).toEqual({ n: 0 });
    expect(store.load()).toEqual(before);
    store.append(textMessage('after', 'later'));
    store.compact();
    expect(db.query('SELECT COUNT(*) AS n FROM conversation_bases').get()).toEqual({ n: 1 });
    expect(ids(store.load())).toEqual([...ids(before), 'after']);
    expect(store.messagesOfTurn('t')).toHaveLength(19);
  });

  test('compacting with nothing new is a no-op', () => {
    const { store } = freshStore();
    expect(store.compact()).toEqual({ foldedEvents: 0, messages: 0 });
  });

  test('compacts by itself once the threshold of events is reached', () => {
    const { store } = freshStore({ compactAfterEvents: 5 });
    for (let index = 0; index < 12; index++) store.append(textMessage(`m${index}`, 'x'));
    expect(store.eventCountSinceBase()).toBe(2);
    expect(store.load()).toHaveLength(12);
  });

  test('sequence numbers are never reused after compaction, so later events still apply', () => {
    const { path, db, store } = freshStore();
    store.appendMany([textMessage('a', 'one'), textMessage('b', 'two')]);
    store.compact();
    db.close();
    const reopened = openInstanceDatabase(path);
    const again = new ConversationStore(reopened, { compactAfterEvents: 0 });
    again.remove('a');
    expect(ids(again.load())).toEqual(['b']);
    reopened.close();
  });
});

describe('ConversationStore with two connections', () => {
  test('a reader inside a transaction keeps its snapshot and does not block the writer', () => {
    const { path, store } = freshStore();
    store.append(textMessage('a', 'one'));
    const readerDb = openInstanceDatabase(path);
    const reader = new ConversationStore(readerDb, { compactAfterEvents: 0 });
    readerDb.run('BEGIN');
    expect(ids(reader.load())).toEqual(['a']);
    store.append(textMessage('b', 'two'));
    store.compact();
    expect(ids(reader.load())).toEqual(['a']);
    readerDb.run('COMMIT');
    expect(ids(reader.load())).toEqual(['a', 'b']);
    readerDb.close();
  });
});

describe('ConversationStore and secrets', () => {
  test('known secret values are masked before a message is written, in appends and replaces', () => {
    rememberSecretValue('Zq8vXw3kLm9pRt2y');
    try {
      const { path, db, store } = freshStore();
      store.append(textMessage('m1', 'the key is Zq8vXw3kLm9pRt2y, keep it safe'));
      store.replace('m1', textMessage('m2', 'again: xZq8vXw3kLm9pRt2yx'));
      store.append(toolMessage());
      expect(store.load().map((message) => message.data.content)).toEqual([
        'again: x[REDACTED]x',
        toolMessage().data.content,
      ]);
      db.close();
      expect(readFileSync(path).includes('Zq8vXw3kLm9pRt2y')).toBe(false);
    } finally {
      forgetSecretValues();
    }
  });
});

describe('ConversationStore compaction schedule', () => {
  test('waits for as many events as the base holds, so a long conversation is not re-encoded every 200 writes', () => {
    const store = new ConversationStore(openInstanceDatabase(join(temp.make(), 'state.db')), {
      compactAfterEvents: 200,
    });
    const pendingAfter: number[] = [];
    for (let index = 1; index <= 1_000; index += 1) {
      store.append(textMessage(`m${index}`, `message ${index}`));
      if ([199, 200, 399, 400, 799, 800, 1_000].includes(index)) pendingAfter.push(store.eventCountSinceBase());
    }
    // Bases of 200, 400 and 800 messages; the next compaction waits for 800 more events.
    expect(pendingAfter).toEqual([199, 0, 199, 0, 399, 0, 200]);
    expect(store.load()).toHaveLength(1_000);
  });

  test('a store opened on a long conversation (a new process) waits as long, instead of folding after 200 events', () => {
    const path = join(temp.make(), 'state.db');
    const first = new ConversationStore(openInstanceDatabase(path), { compactAfterEvents: 200 });
    first.appendMany(Array.from({ length: 1_000 }, (_, index) => textMessage(`m${index}`, `message ${index}`)));
    first.compact();
    // The next process: 999 more events fold nothing (the base holds 1000 messages); the 1000th folds.
    const next = new ConversationStore(openInstanceDatabase(path), { compactAfterEvents: 200 });
    for (let index = 1_000; index < 1_999; index += 1) next.append(textMessage(`m${index}`, `message ${index}`));
    expect(next.eventCountSinceBase()).toBe(999);
    next.append(textMessage('m1999', 'message 1999'));
    expect(next.eventCountSinceBase()).toBe(0);
    expect(ids(next.load())).toEqual(Array.from({ length: 2_000 }, (_, index) => `m${index}`));
  });
});

describe('ConversationStore handled events', () => {
  test('a sole writer answers hasEvent like the database: ids stored earlier, written since, rolled back, pruned', () => {
    const { db, store: earlier } = freshStore();
    earlier.appendMany([textMessage('u-1', 'one')], { eventId: 'evt-1' });
    const store = new ConversationStore(db, { compactAfterEvents: 0, soleWriter: true });
    expect(store.hasEvent('evt-1')).toBe(true);
    expect(store.hasEvent('evt-2')).toBe(false);
    store.appendMany([textMessage('u-2', 'two')], { eventId: 'evt-2' });
    expect(store.hasEvent('evt-2')).toBe(true);
    // A write that rolls back leaves no handled event behind.
    expect(() =>
      store.inTransaction(() => {
        store.appendMany([textMessage('u-3', 'three')], { eventId: 'evt-3' });
        throw new Error('rolled back');
      }),
    ).toThrow();
    expect(store.hasEvent('evt-3')).toBe(false);
    store.appendMany([textMessage('u-4', 'four')], { eventId: 'evt-4' });
    store.pruneHandledEvents(1);
    expect([store.hasEvent('evt-1'), store.hasEvent('evt-2'), store.hasEvent('evt-4')]).toEqual([false, false, true]);
  });
});

describe('ConversationStore tail', () => {
  test('tail(n) is load().slice(-n) with load().length, whatever events follow the base (random sequences)', () => {
    // A small deterministic generator, so a failure can be replayed.
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    for (let round = 0; round < 40; round += 1) {
      const { store } = freshStore({ compactAfterEvents: 0 });
      let next = 0;
      const known: string[] = [];
      for (let step = 0; step < 120; step += 1) {
        const roll = random(100);
        const someId = () => known[random(known.length)] ?? 'none';
        if (roll < 45) {
          const id = `m${next++}`;
          known.push(id);
          store.append(textMessage(id, `text ${id}`));
        } else if (roll < 55) store.append(textMessage(someId(), 'a repeated id is ignored'));
        else if (roll < 68) store.replace(someId(), textMessage(someId(), `replaced in round ${round}`));
        else if (roll < 73) {
          const id = `m${next++}`;
          known.push(id);
          store.replace(someId(), textMessage(id, `replaced by a new id ${id}`));
        } else if (roll < 85) store.remove(someId());
        else if (roll < 87) store.truncate();
        else if (roll < 93) store.compact();
        if (step % 10 === 9) {
          const all = store.load();
          for (const limit of [0, 1, 3, 10, 1_000]) {
            const tail = store.tail(limit);
            expect(tail.total).toBe(all.length);
            expect(ids(tail.messages)).toEqual(ids(limit === 0 ? [] : all.slice(-limit)));
            expect(tail.messages).toEqual(limit === 0 ? [] : all.slice(-limit));
          }
        }
      }
    }
  });

  test('reads only the end of a large base', () => {
    const { store } = freshStore({ compactAfterEvents: 0 });
    store.appendMany(Array.from({ length: 5_000 }, (_, index) => textMessage(`m${index}`, `message ${index}`)));
    store.compact();
    store.append(textMessage('m0', 'first write wins: ignored'));
    store.remove('m4999');
    store.replace('m10', textMessage('m10', 'edited'));
    store.append(textMessage('m5000', 'new'));
    const tail = store.tail(3);
    expect(tail.total).toBe(5_000);
    expect(ids(tail.messages)).toEqual(['m4997', 'm4998', 'm5000']);
  });
});
