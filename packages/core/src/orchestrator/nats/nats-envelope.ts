import type { IpcMessage } from '../ipc-message.ts';
import type { ProcessExit } from '../spawn-agent-process.ts';

/** What travels on a connection's subjects: a message, a line the process wrote, or the process's exit. */
export type Envelope = { m: IpcMessage } | { out: string; stream: 'stdout' | 'stderr' } | { exit: ProcessExit };

/** The header that marks one part of an envelope too large for one NATS message: `index/count`, from 1. */
export const PART_HEADER = 'Gdn-Part';
/** Room left under the broker's max_payload for the headers (Nats-Msg-Id, Gdn-Part) and JetStream's own. */
const HEADER_ROOM = 4_096;
/** The most an envelope sent in parts may weigh once joined: parts beyond it are dropped (a hostile sender). */
export const MAX_JOINED_BYTES = 256 * 1024 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a decoded message is an envelope this runtime sends. Anyone allowed to publish on the swarm's subjects
 * could put anything there: what is not an envelope is dropped, never handed on (a `null` once stopped a
 * connection's consumer for good). The message itself (`m`) is checked by its receiver (`isIpcMessage`).
 */
export function isEnvelope(value: unknown): value is Envelope {
  if (!isRecord(value)) return false;
  if ('m' in value) return isRecord(value.m);
  if ('out' in value) return typeof value.out === 'string' && (value.stream === 'stdout' || value.stream === 'stderr');
  if ('exit' in value) {
    const exit = value.exit;
    return (
      isRecord(exit) &&
      (exit.exitCode === null || typeof exit.exitCode === 'number') &&
      (exit.signalCode === null || typeof exit.signalCode === 'string')
    );
  }
  return false;
}

/**
 * The bytes of an envelope in messages the broker accepts: one when it fits under `maxPayload` (less room for
 * headers), else consecutive parts. A larger one would be refused by the broker on every retry, for ever (the
 * bundle sent to each process is ~75 KB for a small swarm; a broker's max_payload is 1 MB by default, often less).
 */
export function splitPayload(data: Uint8Array, maxPayload: number): Uint8Array[] {
  const size = Math.max(1_024, maxPayload - HEADER_ROOM);
  if (data.byteLength <= size) return [data];
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < data.byteLength; offset += size) parts.push(data.subarray(offset, offset + size));
  return parts;
}

/**
 * Joins parts back into an envelope's bytes. Parts come in order and once (the link's guarantee); a part out of
 * its place (a hostile or broken sender) drops what was gathered.
 */
export function createPartJoiner() {
  let parts: Uint8Array[] = [];
  let bytes = 0;
  const reset = () => {
    parts = [];
    bytes = 0;
  };
  return {
    /** The whole envelope's bytes once `data` was its last part, else null. */
    add(header: string, data: Uint8Array): Uint8Array | null {
      const match = /^(\d+)\/(\d+)$/.exec(header);
      const index = Number(match?.[1]);
      const count = Number(match?.[2]);
      if (index === 1) reset();
      if (!match || index > count || index !== parts.length + 1 || bytes + data.byteLength > MAX_JOINED_BYTES) {
        reset();
        return null;
      }
      parts.push(data);
      bytes += data.byteLength;
      if (index < count) return null;
      const whole = Buffer.concat(parts);
      reset();
      return whole;
    },
    /** A whole message came between parts: what was gathered is dropped. */
    reset,
  };
}

/** Envelopes that arrived ahead of one still missing, kept until it comes (beyond this many, dropped). */
const MAX_HELD = 10_000;

/**
 * Hands envelopes on in the order of their number in the link (`n`, from 1), whatever order the broker stored
 * them in: one that arrives early waits for those before it; one seen already (a redelivery) is dropped. An
 * envelope without a number is handed on at once.
 */
export function createEnvelopeOrder(handOn: (envelope: Envelope) => void): (envelope: Envelope) => void {
  let expected = 1;
  const held = new Map<number, Envelope>();
  return (envelope) => {
    const n = (envelope as { n?: unknown }).n;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) return handOn(envelope);
    if (n < expected || held.has(n)) return;
    if (n > expected) {
      if (held.size < MAX_HELD) held.set(n, envelope);
      return;
    }
    handOn(envelope);
    expected += 1;
    for (let next = held.get(expected); next !== undefined; next = held.get(expected)) {
      held.delete(expected);
      handOn(next);
      expected += 1;
    }
  };
}
