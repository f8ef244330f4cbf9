import { type IpcMessage, isIpcMessage } from './ipc-message.ts';
import type { Transport } from './transport.ts';

/** A transport whose incoming side is fed by someone else (Bun's `ipc` callback); `send` is given. */
export interface FedTransport extends Transport {
  receive(message: unknown): void;
  closed(): void;
}

/** The common part of both process ends: handler sets, ordered delivery, close once. */
export function createFedTransport(options: { send: (message: IpcMessage) => void; close: () => void }): FedTransport {
  const handlers = new Set<(message: IpcMessage) => void>();
  const closeHandlers: (() => void)[] = [];
  let isClosed = false;
  const transport: FedTransport = {
    send(message) {
      if (isClosed) return;
      try {
        options.send(message);
      } catch {
        // The other end is gone; the close handlers report it.
      }
    },
    onMessage(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    onClose(handler) {
      closeHandlers.push(handler);
    },
    close() {
      if (isClosed) return;
      try {
        options.close();
      } catch {
        // Already disconnected.
      }
      transport.closed();
    },
    receive(message) {
      if (isClosed || !isIpcMessage(message)) return;
      for (const handler of handlers) handler(message);
    },
    closed() {
      if (isClosed) return;
      isClosed = true;
      for (const handler of closeHandlers) handler();
    },
  };
  return transport;
}

/**
 * The agent process's end of the pipe to the orchestrator (`process.send` / `process.on('message')`, Bun's IPC
 * with JSON serialisation). `onClose` fires when the orchestrator goes away, however it died.
 */
export function createParentTransport(): Transport {
  if (typeof process.send !== 'function') throw new Error('This process was not started with an IPC channel.');
  const transport = createFedTransport({
    send: (message) => process.send!(message),
    close: () => process.disconnect?.(),
  });
  process.on('message', (message) => transport.receive(message));
  process.on('disconnect', () => transport.closed());
  return transport;
}
