import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import {
  createEnvelopeOrder,
  createPartJoiner,
  type Envelope,
  isEnvelope,
  PART_HEADER,
  splitPayload,
} from './nats-envelope.ts';
import type { NatsSession } from './nats-session.ts';

export type { Envelope } from './nats-envelope.ts';

export interface NatsLink {
  /** Publishes in order, each under a Nats-Msg-Id; retried (same id) until the broker stored it. */
  send(envelope: Envelope, msgId: string): void;
  onEnvelope(handler: (envelope: Envelope) => void): void;
  /** Resolves once the consumer exists (messages published before it are kept by the stream all the same). */
  readonly ready: Promise<void>;
  /** Resolves once everything sent so far is stored. */
  flushed(): Promise<void>;
  /** Stops consuming; `remove` also deletes the consumer and what is left on its subject. */
  close(options?: { remove?: boolean }): Promise<void>;
}

const RETRY_MS = 250;
const PUBLISH_TIMEOUT_MS = 5_000;
const RECENT_IDS = 4096;
/** The broker's limit when it has not said (nats-server's default). */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** A consumer nobody pulls from for this long is removed by the server (its owner died without removing it). */
const INACTIVE_THRESHOLD_NS = 10 * 60 * 1e9;

interface Outgoing {
  data: Uint8Array;
  msgId: string;
  /** `index/count` when the envelope travels in parts. */
  part?: string;
  stored: boolean;
}

/**
 * One direction pair of a connection over JetStream: publishes to `publishSubject`, consumes `consumeSubject`
 * through a durable consumer of its own (one filter subject: nats-server 2.9 allows no more). Delivery is in
 * order and once: the publisher retries with the same Nats-Msg-Id (the stream drops duplicates within its
 * window), and the consumer skips stream sequences and ids it has seen (redeliveries after a broker restart).
 * The broker may store a retried envelope after later ones (published while the first one's failure was not yet
 * known, around a broker restart): each envelope carries its number in the link (`n`, from 1), and the consumer
 * hands them on in that order, holding those that arrive early until the missing one is stored.
 * An envelope larger than the broker's max_payload travels in consecutive parts, joined again on receipt; what
 * is not an envelope (anyone on the subject could publish it) is dropped.
 */
export function createNatsLink(
  session: NatsSession,
  options: { publishSubject: string; consumeSubject: string; durable: string },
): NatsLink {
  const { js, jsm, names, modules } = session;
  const handlers: ((envelope: Envelope) => void)[] = [];
  const outbox: Outgoing[] = [];
  const flushWaiters: (() => void)[] = [];
  const recent = new Set<string>();
  let lastSeq = 0;
  /** Envelopes sent on this link (the next one's `n` is one more). */
  let sent = 0;
  let retrying = false;
  let closed = false;
  let messages: ConsumerMessages | undefined;

  const settle = () => {
    while (outbox[0]?.stored) outbox.shift();
    if (outbox.length === 0) for (const wake of flushWaiters.splice(0)) wake();
  };
  const publish = (entry: Outgoing) => {
    const headers = entry.part ? modules.core.headers() : undefined;
    headers?.set(PART_HEADER, entry.part!);
    const publishOptions = { msgID: entry.msgId, timeout: PUBLISH_TIMEOUT_MS, ...(headers ? { headers } : {}) };
    js.publish(options.publishSubject, entry.data, publishOptions).then(
      () => {
        entry.stored = true;
        settle();
      },
      () => {
        if (!closed) retry();
      },
    );
  };
  const retry = () => {
    if (retrying) return;
    retrying = true;
    setTimeout(() => {
      retrying = false;
      // Everything not stored goes again, in order; what the stream has already is dropped as a duplicate.
      for (const entry of outbox) if (!entry.stored) publish(entry);
    }, RETRY_MS);
  };

  const joiner = createPartJoiner();
  const inOrder = createEnvelopeOrder((envelope) => {
    for (const handler of handlers) {
      try {
        handler(envelope);
      } catch {
        // A handler that throws must not stop the consumer: later messages of the connection still arrive.
      }
    }
  });
  const receive = (message: JsMsg) => {
    message.ack();
    if (message.seq <= lastSeq) return;
    lastSeq = message.seq;
    const id = message.headers?.get('Nats-Msg-Id');
    if (id) {
      if (recent.has(id)) return;
      recent.add(id);
      if (recent.size > RECENT_IDS) recent.delete(recent.values().next().value as string);
    }
    const part = message.headers?.get(PART_HEADER);
    const data = part ? joiner.add(part, message.data) : message.data;
    if (!part) joiner.reset();
    if (!data) return;
    let envelope: unknown;
    try {
      envelope = JSON.parse(new TextDecoder().decode(data));
    } catch {
      return;
    }
    if (isEnvelope(envelope)) inOrder(envelope);
  };
  const consume = async () => {
    if (closed) return;
    const consumer = await js.consumers.get(names.stream, options.durable);
    if (closed) return;
    messages?.stop();
    messages = await consumer.consume({ max_messages: 512, idle_heartbeat: 1_000, callback: receive });
  };
  const stopReconnect = session.onReconnect(() => {
    // After a broker restart the pull is made again; the consumer's position survived with the stream.
    void consume().catch(() => {});
  });
  const ready = (async () => {
    await jsm.consumers.add(names.stream, {
      durable_name: options.durable,
      filter_subject: options.consumeSubject,
      ack_policy: modules.jetstream.AckPolicy.Explicit,
      deliver_policy: modules.jetstream.DeliverPolicy.All,
      inactive_threshold: INACTIVE_THRESHOLD_NS,
    });
    await consume();
  })();
  ready.catch(() => {});

  return {
    ready,
    send(envelope, msgId) {
      if (closed) return;
      const maxPayload = session.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
      sent += 1;
      const numbered = { ...envelope, n: sent };
      const parts = splitPayload(new TextEncoder().encode(JSON.stringify(numbered)), maxPayload);
      parts.forEach((data, index) => {
        const part = parts.length > 1 ? `${index + 1}/${parts.length}` : undefined;
        const entry: Outgoing = {
          data,
          msgId: part ? `${msgId}#${part}` : msgId,
          stored: false,
          ...(part ? { part } : {}),
        };
        outbox.push(entry);
        if (!retrying) publish(entry);
      });
    },
    onEnvelope(handler) {
      handlers.push(handler);
    },
    flushed() {
      if (outbox.length === 0) return Promise.resolve();
      return new Promise((resolve) => flushWaiters.push(resolve));
    },
    async close({ remove = false } = {}) {
      if (closed) return;
      closed = true;
      stopReconnect();
      messages?.stop();
      for (const wake of flushWaiters.splice(0)) wake();
      if (!remove) return;
      await jsm.consumers.delete(names.stream, options.durable).catch(() => {});
      await jsm.streams.purge(names.stream, { filter: options.consumeSubject }).catch(() => {});
    },
  };
}
