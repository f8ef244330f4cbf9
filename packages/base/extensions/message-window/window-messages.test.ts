import { describe, expect, test } from 'bun:test';
import type { Message } from '@goondan/core';
import { windowMessages } from './window-messages.ts';

/**
 * A conversation from labels: `u0` user, `a1` assistant text, `A2:x,y` assistant calling x and y, `T3:x` the
 * result of call x. The number only names the message.
 */
function conversation(...labels: string[]): Message[] {
  return labels.map((label) => {
    const [head, ids = ''] = label.split(':') as [string, string?];
    const calls = ids ? ids.split(',') : [];
    const kind = head[0];
    const data =
      kind === 'u'
        ? { role: 'user' as const, content: label }
        : kind === 'a'
          ? { role: 'assistant' as const, content: [{ type: 'text', text: label }] }
          : kind === 'A'
            ? {
                role: 'assistant' as const,
                content: calls.map((id) => ({ type: 'tool-call', toolCallId: id, toolName: 't__x', input: {} })),
              }
            : {
                role: 'tool' as const,
                content: calls.map((id) => ({ type: 'tool-result', toolCallId: id, toolName: 't__x', output: {} })),
              };
    return { id: label, data, metadata: {}, createdAt: new Date(0), source: { type: 'system' } } as Message;
  });
}

const ids = (messages: Message[]) => messages.map((message) => message.id);
const noPin = { keepFirstUserMessage: false };

describe('windowMessages', () => {
  test('a conversation within the limit is returned as is (same array)', () => {
    const messages = conversation('u0', 'a1');
    expect(windowMessages(messages, 2)).toBe(messages);
  });

  test('the last N messages, with the first user message kept in front (counting toward N)', () => {
    const messages = conversation('u0', 'a1', 'u2', 'a3', 'u4', 'a5');
    expect(ids(windowMessages(messages, 3))).toEqual(['u0', 'u4', 'a5']);
    expect(ids(windowMessages(messages, 3, noPin))).toEqual(['a3', 'u4', 'a5']);
    expect(ids(messages)).toEqual(['u0', 'a1', 'u2', 'a3', 'u4', 'a5']); // input untouched
  });

  test('a cut just after a call moves past its result instead of opening with it', () => {
    const messages = conversation('u0', 'A1:x', 'T2:x', 'a3');
    expect(ids(windowMessages(messages, 2, noPin))).toEqual(['a3']);
    expect(ids(windowMessages(messages, 3, noPin))).toEqual(['A1:x', 'T2:x', 'a3']);
  });

  test('parallel calls: a cut between results drops the whole group, or keeps it whole when room allows', () => {
    const messages = conversation('u0', 'A1:x,y', 'T2:x', 'T3:y', 'a4');
    expect(ids(windowMessages(messages, 2, noPin))).toEqual(['a4']);
    expect(ids(windowMessages(messages, 3, noPin))).toEqual(['a4']);
    expect(ids(windowMessages(messages, 4, noPin))).toEqual(['A1:x,y', 'T2:x', 'T3:y', 'a4']);
  });

  test('results in separate messages answering one assistant message stay with it', () => {
    const messages = conversation('u0', 'a1', 'A2:x,y,z', 'T3:x', 'T4:y', 'T5:z');
    expect(ids(windowMessages(messages, 5, noPin))).toEqual(['a1', 'A2:x,y,z', 'T3:x', 'T4:y', 'T5:z']);
    expect(ids(windowMessages(messages, 4, noPin))).toEqual(['A2:x,y,z', 'T3:x', 'T4:y', 'T5:z']);
  });

  test('N smaller than one call/results group keeps the whole group', () => {
    const messages = conversation('u0', 'a1', 'A2:x,y,z', 'T3:x', 'T4:y', 'T5:z');
    expect(ids(windowMessages(messages, 2, noPin))).toEqual(['A2:x,y,z', 'T3:x', 'T4:y', 'T5:z']);
    expect(ids(windowMessages(messages, 2))).toEqual(['u0', 'A2:x,y,z', 'T3:x', 'T4:y', 'T5:z']);
    expect(ids(windowMessages(messages, 1))).toEqual(['A2:x,y,z', 'T3:x', 'T4:y', 'T5:z']);
  });

  test('the pinned first user message is not repeated when the window reaches it', () => {
    const messages = conversation('a0', 'u1', 'A2:x', 'T3:x', 'a4');
    expect(ids(windowMessages(messages, 4))).toEqual(['u1', 'A2:x', 'T3:x', 'a4']);
  });

  test('a result whose call is nowhere (damaged history) never opens the window', () => {
    const messages = conversation('u0', 'a1', 'T2:lost', 'a3');
    expect(ids(windowMessages(messages, 2, noPin))).toEqual(['a3']);
    expect(ids(windowMessages(messages, 3, noPin))).toEqual(['a1', 'T2:lost', 'a3']);
  });

  test('invariants over many generated conversations and every N', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let round = 0; round < 200; round += 1) {
      const labels: string[] = [];
      let call = 0;
      while (labels.length < 25) {
        const roll = random();
        if (roll < 0.3) labels.push(`u${labels.length}`);
        else if (roll < 0.5) labels.push(`a${labels.length}`);
        else {
          const group = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `c${call++}`);
          labels.push(`A${labels.length}:${group.join(',')}`);
          for (const id of group) labels.push(`T${labels.length}:${id}`);
        }
      }
      const messages = conversation(...labels);
      for (let max = 1; max <= messages.length + 1; max += 1) {
        for (const options of [{}, noPin]) {
          const window = windowMessages(messages, max, options);
          const inWindow = new Set(ids(window));
          expect(window.length).toBeGreaterThan(0);
          expect(window[0]!.data.role).not.toBe('tool');
          const callsOf = (id: string) => id.split(':')[1]!.split(',');
          for (const message of window) {
            if (message.id.startsWith('T')) {
              const callId = callsOf(message.id)[0]!;
              const caller = messages.find((m) => m.id.startsWith('A') && callsOf(m.id).includes(callId))!;
              expect(inWindow.has(caller.id)).toBe(true);
            }
            if (message.id.startsWith('A')) {
              for (const callId of callsOf(message.id)) {
                expect(window.some((m) => m.id.startsWith('T') && m.id.endsWith(`:${callId}`))).toBe(true);
              }
            }
          }
          // The window is a suffix of the conversation, possibly after the pinned first user message.
          const pinned = window.length > 1 && messages.indexOf(window[1]!) !== messages.indexOf(window[0]!) + 1;
          const suffix = pinned ? window.slice(1) : window;
          if (pinned) expect(window[0]).toBe(messages.find((m) => m.data.role === 'user')!);
          expect(suffix).toEqual(messages.slice(messages.length - suffix.length));
          // Only a single call/results group (plus the pinned message) may push the window past max.
          if (window.length > max) expect(window.filter((m) => m.id.startsWith('A')).length).toBe(1);
        }
      }
    }
  });
});
