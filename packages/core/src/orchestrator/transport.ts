import type { IpcMessage } from './ipc-message.ts';

/**
 * How IPC messages travel between the orchestrator and an agent process (spec v2.0-b §11.2). Messages are
 * JSON-serialisable and delivered in order. Implementations: the process pipe (`process-transport.ts`) and an
 * in-memory linked pair for tests; a broker such as NATS JetStream can replace them later without touching the
 * orchestrator or the agent process.
 */
export interface Transport {
  /** Sends in order; a message sent after the transport closed is dropped. */
  send(message: IpcMessage): void;
  /** Receives every message, in the order sent. Returns a function that stops receiving. */
  onMessage(handler: (message: IpcMessage) => void): () => void;
  /** Told once when the other end goes away (or `close()` is called). */
  onClose(handler: () => void): void;
  close(): void;
}
