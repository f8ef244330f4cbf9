import type { JsonValue, Message, MessageSource, ModelMessage } from '../types.ts';

/** A Message as it is written to the database: `createdAt` as epoch milliseconds, the rest as it was. */
export interface StoredMessage {
  id: string;
  createdAt: number;
  source: MessageSource;
  metadata: Record<string, JsonValue>;
  data: ModelMessage;
}

/** Takes exactly the fields of the spec's Message, so nothing else a caller hung on the object is persisted. */
export function toStoredMessage(message: Message): StoredMessage {
  const { id, createdAt, source, metadata, data } = message;
  return { id, createdAt: new Date(createdAt).getTime(), source, metadata, data };
}

export function fromStoredMessage(stored: StoredMessage): Message {
  const { id, createdAt, source, metadata, data } = stored;
  return { id, data, metadata, createdAt: new Date(createdAt ?? Number.NaN), source };
}
