import type { IpcMessage } from './ipc-message.ts';
import type { Transport } from './transport.ts';

interface End extends Transport {
  deliver(message: IpcMessage): void;
  closeFromPeer(): void;
}

function createEnd(peer: () => End): End {
  const handlers = new Set<(message: IpcMessage) => void>();
  const closeHandlers: (() => void)[] = [];
  let closed = false;
  const end: End = {
    send(message) {
      if (closed) return;
      // A JSON round trip, like the process pipe: whatever cannot be serialised fails here, in tests too.
      const copy = JSON.parse(JSON.stringify(message)) as IpcMessage;
      queueMicrotask(() => peer().deliver(copy));
    },
    onMessage(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    onClose(handler) {
      closeHandlers.push(handler);
    },
    close() {
      if (closed) return;
      end.closeFromPeer();
      queueMicrotask(() => peer().closeFromPeer());
    },
    deliver(message) {
      if (closed) return;
      for (const handler of handlers) handler(message);
    },
    closeFromPeer() {
      if (closed) return;
      closed = true;
      for (const handler of closeHandlers) handler();
    },
  };
  return end;
}

/**
 * Two transports linked to each other in memory: what one sends the other receives, asynchronously, in order,
 * after a JSON round trip. For unit tests of the orchestrator and the agent process without processes.
 */
export function createLinkedTransports(): [Transport, Transport] {
  const a: End = createEnd(() => b);
  const b: End = createEnd(() => a);
  return [a, b];
}
