import { describe, expect, test } from 'bun:test';
import type { IpcMessage, IpcShutdownMessage } from './ipc-message.ts';
import { createLinkedTransports } from './linked-transports.ts';

const shutdown = (reason: string): IpcShutdownMessage => ({
  type: 'shutdown',
  from: 'orchestrator',
  to: 'worker/default',
  payload: { gracePeriodMs: 10, reason },
});

describe('createLinkedTransports', () => {
  test('delivers what one end sends to the other, in order, as JSON copies', async () => {
    const [a, b] = createLinkedTransports();
    const received: IpcMessage[] = [];
    b.onMessage((message) => received.push(message));
    const first = shutdown('one');
    a.send(first);
    a.send(shutdown('two'));
    first.payload.reason = 'changed after sending';
    await Bun.sleep(0);
    expect(received.map((message) => (message.payload as { reason: string }).reason)).toEqual(['one', 'two']);
  });

  test('closing one end tells both; later sends are dropped', async () => {
    const [a, b] = createLinkedTransports();
    const closed: string[] = [];
    a.onClose(() => closed.push('a'));
    b.onClose(() => closed.push('b'));
    const received: IpcMessage[] = [];
    b.onMessage((message) => received.push(message));
    a.close();
    a.send(shutdown('late'));
    await Bun.sleep(0);
    expect(closed.sort()).toEqual(['a', 'b']);
    expect(received).toEqual([]);
  });

  test('a message that is not JSON-serialisable fails at the sender, as on the process pipe', () => {
    const [a] = createLinkedTransports();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() =>
      a.send({
        type: 'shutdown_ack',
        from: 'x',
        to: 'orchestrator',
        payload: cyclic as unknown as { turnsServed: number },
      }),
    ).toThrow();
  });
});
