import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConversationStore, instancePaths, type Message, openInstanceDatabase } from '@goondan/core';
import { consoleRoutes } from '../console/console-routes.ts';
import { pageOfConversation, readConversationPage } from './conversation-page.ts';
import { createServeApi } from './serve-api.ts';

const ids = (list: { id: string }[]) => list.map((message) => message.id);
const messages = Array.from({ length: 7 }, (_, index) => ({ id: `m${index}` }));

describe('pageOfConversation', () => {
  test('the last `limit`, then page by page back to the first, each pointing at the one before', () => {
    const last = pageOfConversation(messages, { limit: 3 });
    expect(ids(last.shown)).toEqual(['m4', 'm5', 'm6']);
    expect(last.earlier).toBe('m4');
    const middle = pageOfConversation(messages, { limit: 3, before: last.earlier! });
    expect(ids(middle.shown)).toEqual(['m1', 'm2', 'm3']);
    const first = pageOfConversation(messages, { limit: 3, before: middle.earlier! });
    expect(ids(first.shown)).toEqual(['m0']);
    expect(first.earlier).toBeNull();
  });

  test('without a limit, everything (before `before`); an unknown `before` is a bad request', () => {
    expect(pageOfConversation(messages, {})).toEqual({ shown: messages, earlier: null });
    expect(ids(pageOfConversation(messages, { before: 'm2' }).shown)).toEqual(['m0', 'm1']);
    expect(() => pageOfConversation(messages, { before: 'nope' })).toThrow(
      expect.objectContaining({ code: 'E_SERVE_BAD_REQUEST' }),
    );
  });
});

describe('readConversationPage', () => {
  test('the last page read with tail is the page of the whole conversation, folded or not', () => {
    const rootDir = mkdtempSync(join(tmpdir(), 'gdn-conversation-tail-'));
    try {
      const db = openInstanceDatabase(join(rootDir, 'state.db'));
      const store = new ConversationStore(db, { compactAfterEvents: 0 });
      const message = (index: number): Message => ({
        id: `msg_${index}`,
        data: { role: 'user', content: `message ${index}` },
        metadata: {},
        createdAt: new Date(index),
        source: { type: 'user' },
      });
      for (let index = 0; index < 30; index += 1) {
        store.append(message(index));
        if (index === 12) store.compact();
      }
      const whole = store.load();
      for (const limit of [1, 5, 18, 30, 31]) {
        const read = readConversationPage(store, { limit });
        expect(read).toEqual({ ...pageOfConversation(whole, { limit }), total: 30 });
      }
      // With a cursor, or no limit, the whole conversation is read as before.
      expect(readConversationPage(store, { limit: 5, before: 'msg_10' }).shown.map((m) => m.id)).toEqual([
        'msg_5',
        'msg_6',
        'msg_7',
        'msg_8',
        'msg_9',
      ]);
      expect(readConversationPage(store, {}).total).toBe(30);
      db.close();
    } finally {
      rmSync(rootDir, { recursive: true, force: true });
    }
  });
});

describe('the console conversation API pages through a long conversation', () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'gdn-conversation-page-'));
  afterAll(() => rmSync(rootDir, { recursive: true, force: true }));

  test('450 messages: the last 200, the 200 before, the first 50; bad cursors are 400', async () => {
    const { databaseFile } = instancePaths({ rootDir, agentName: 'helper', instanceKey: 'long' });
    mkdirSync(dirname(databaseFile), { recursive: true });
    const db = openInstanceDatabase(databaseFile);
    const stored: Message[] = Array.from({ length: 450 }, (_, index) => ({
      id: `msg_${index}`,
      data: { role: 'user', content: `message ${index}` },
      metadata: {},
      createdAt: new Date(index),
      source: { type: 'user' },
    }));
    new ConversationStore(db).appendMany(stored);
    db.close();
    const api = createServeApi({
      routes: consoleRoutes({ mode: 'bundle', rootDir: () => rootDir, agents: () => ['helper'] }),
    });
    const page = async (query: string) => {
      const response = await api(new Request(`http://127.0.0.1/console/api/conversation/helper/long${query}`));
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    type Page = { total: number; earlier: string | null; messages: { id: string }[] };
    const latest = (await page('')).body as unknown as Page;
    expect(latest.total).toBe(450);
    expect(latest.messages.map((message) => message.id)).toEqual(stored.slice(250).map((message) => message.id));
    const before = (await page(`?before=${latest.earlier}`)).body as unknown as Page;
    expect(before.messages[0]!.id).toBe('msg_50');
    expect(before.messages.at(-1)!.id).toBe('msg_249');
    const first = (await page(`?before=${before.earlier}`)).body as unknown as Page;
    expect(first.messages).toHaveLength(50);
    expect(first.earlier).toBeNull();
    expect(await page('?before=msg_nope')).toMatchObject({
      status: 400,
      body: { error: { code: 'E_SERVE_BAD_REQUEST' } },
    });
    expect(await page('?before=%3Cscript%3E')).toMatchObject({
      status: 400,
      body: { error: { code: 'E_SERVE_BAD_REQUEST' } },
    });
  });
});
