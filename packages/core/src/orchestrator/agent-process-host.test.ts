import { expect, test } from 'bun:test';
import { AgentProcessHost } from './agent-process-host.ts';
import { type IpcMessage, ORCHESTRATOR } from './ipc-message.ts';
import { createLinkedTransports } from './linked-transports.ts';

test('a shutdown that came before the host existed (a spare told its config, then stopped) is acked, not lost', async () => {
  const [parentEnd, childEnd] = createLinkedTransports();
  const acked = new Promise<IpcMessage>((resolve) =>
    parentEnd.onMessage((message) => {
      if (message.type === 'shutdown_ack') resolve(message);
    }),
  );
  const exited = new Promise<number>((resolve) => {
    new AgentProcessHost({
      transport: childEnd,
      agent: 'worker',
      instanceKey: 'default',
      observe: false,
      exit: resolve,
      earlier: [
        {
          type: 'shutdown',
          from: ORCHESTRATOR,
          to: 'worker/default',
          payload: { gracePeriodMs: 1000, reason: 'stop' },
        },
      ],
    });
  });
  expect(await exited).toBe(0);
  expect(await acked).toMatchObject({ type: 'shutdown_ack', from: 'worker/default', payload: { turnsServed: 0 } });
});
