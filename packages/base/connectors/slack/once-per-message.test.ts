import { describe, expect, test } from 'bun:test';
import { oncePerMessage } from './once-per-message.ts';

describe('oncePerMessage', () => {
  test('a message delivered again (the same channel and ts) is skipped', async () => {
    const messages = oncePerMessage({ holdMs: 10_000, limit: 10 });
    expect(await messages.take('C1 1.1', false)).toBe(true);
    expect(await messages.take('C1 1.1', false)).toBe(false);
    expect(await messages.take('C1 1.2', false)).toBe(true);
    expect(await messages.take('C2 1.1', false)).toBe(true);
  });

  test('app_mention first: the message that mentions the app is skipped at once', async () => {
    const messages = oncePerMessage({ holdMs: 10_000, limit: 10 });
    expect(await messages.take('C1 2.1', false)).toBe(true);
    expect(await messages.take('C1 2.1', true)).toBe(false);
  });

  test('the message that mentions the app first: it waits for the app_mention, which is taken instead', async () => {
    const messages = oncePerMessage({ holdMs: 10_000, limit: 10 });
    const started = Date.now();
    const message = messages.take('C1 3.1', true);
    expect(await messages.take('C1 3.1', false)).toBe(true);
    expect(await message).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a message that mentions the app with no app_mention coming (a direct message) is taken after the hold', async () => {
    const messages = oncePerMessage({ holdMs: 50, limit: 10 });
    expect(await messages.take('D1 4.1', true)).toBe(true);
    expect(await messages.take('D1 4.1', false)).toBe(false);
  });

  test('a message forgotten (refused at shutdown) is taken at its next delivery', async () => {
    const messages = oncePerMessage({ holdMs: 50, limit: 10 });
    expect(await messages.take('C1 5.1', false)).toBe(true);
    messages.forget('C1 5.1');
    expect(await messages.take('C1 5.1', false)).toBe(true);
  });

  test('remembers at most limit messages, the oldest forgotten first', async () => {
    const messages = oncePerMessage({ holdMs: 50, limit: 2 });
    for (const key of ['a', 'b', 'c']) expect(await messages.take(key, false)).toBe(true);
    expect(await messages.take('a', false)).toBe(true);
    expect(await messages.take('c', false)).toBe(false);
  });
});
