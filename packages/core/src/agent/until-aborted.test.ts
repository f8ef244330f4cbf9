import { describe, expect, test } from 'bun:test';
import { untilAborted } from './until-aborted.ts';

describe('untilAborted', () => {
  test("passes the work's value and rejection through while the signal holds", async () => {
    const signal = new AbortController().signal;
    expect(await untilAborted(Promise.resolve(3), signal)).toBe(3);
    await expect(untilAborted(Promise.reject(new Error('own')), signal)).rejects.toThrow('own');
  });

  test('rejects with the reason when the signal aborts, though the work never settles', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(new Promise(() => {}), controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    const already = new AbortController();
    already.abort(new Error('before'));
    await expect(untilAborted(new Promise(() => {}), already.signal)).rejects.toThrow('before');
  });
});
