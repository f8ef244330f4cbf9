import { describe, expect, test } from 'bun:test';
import { createEnvelopeOrder, createPartJoiner, type Envelope, isEnvelope, splitPayload } from './nats-envelope.ts';

describe('isEnvelope', () => {
  test('takes what the link sends, drops anything else', () => {
    expect(isEnvelope({ m: { type: 'event' } })).toBe(true);
    expect(isEnvelope({ out: 'line', stream: 'stderr' })).toBe(true);
    expect(isEnvelope({ exit: { exitCode: 0, signalCode: null } })).toBe(true);
    for (const junk of [null, 'text', 42, [], {}, { m: null }, { out: 5, stream: 'stdout' }, { out: 'x' }]) {
      expect(isEnvelope(junk)).toBe(false);
    }
    expect(isEnvelope({ exit: null })).toBe(false);
    expect(isEnvelope({ exit: { exitCode: '1', signalCode: null } })).toBe(false);
  });
});

describe('parts', () => {
  const bytes = (length: number) => new Uint8Array(length).map((_, index) => index % 251);

  test('a payload under the limit is one message; a larger one is cut in parts that join back to it', () => {
    expect(splitPayload(bytes(1_000), 16_384)).toHaveLength(1);
    const data = bytes(50_000);
    const parts = splitPayload(data, 16_384);
    expect(parts.length).toBe(5);
    for (const part of parts) expect(part.byteLength).toBeLessThanOrEqual(16_384 - 4_096);
    const joiner = createPartJoiner();
    const joined = parts.map((part, index) => joiner.add(`${index + 1}/${parts.length}`, part));
    expect(joined.slice(0, -1).every((value) => value === null)).toBe(true);
    expect(Buffer.compare(Buffer.from(joined.at(-1)!), Buffer.from(data))).toBe(0);
  });

  test('a part out of its place drops what was gathered; a first part starts afresh', () => {
    const joiner = createPartJoiner();
    expect(joiner.add('1/3', bytes(3))).toBeNull();
    expect(joiner.add('3/3', bytes(3))).toBeNull();
    expect(joiner.add('2/3', bytes(3))).toBeNull();
    expect(joiner.add('bogus', bytes(3))).toBeNull();
    expect(joiner.add('1/2', bytes(2))).toBeNull();
    expect(joiner.add('1/2', bytes(2))).toBeNull();
    expect(joiner.add('2/2', bytes(2))?.byteLength).toBe(4);
  });
});

describe('createEnvelopeOrder', () => {
  const numbered = (n: number) => ({ out: `line ${n}`, stream: 'stdout', n }) as unknown as Envelope;
  const lines = (handed: Envelope[]) => handed.map((envelope) => (envelope as { out: string }).out);

  test('hands envelopes on by their number: stored out of order (a retry after a broker restart), kept in order', () => {
    const handed: Envelope[] = [];
    const order = createEnvelopeOrder((envelope) => handed.push(envelope));
    for (const n of [1, 2, 5, 6, 3, 4, 7]) order(numbered(n));
    expect(lines(handed)).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => `line ${n}`));
  });

  test('a redelivered or repeated number is dropped; an envelope without a number goes on at once', () => {
    const handed: Envelope[] = [];
    const order = createEnvelopeOrder((envelope) => handed.push(envelope));
    order(numbered(1));
    order(numbered(1));
    order(numbered(3));
    order(numbered(3));
    order({ out: 'unnumbered', stream: 'stderr' });
    order(numbered(2));
    order(numbered(2));
    expect(lines(handed)).toEqual(['line 1', 'unnumbered', 'line 2', 'line 3']);
  });

  test('numbers that are not whole positive numbers are not held', () => {
    const handed: Envelope[] = [];
    const order = createEnvelopeOrder((envelope) => handed.push(envelope));
    for (const n of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2]) order(numbered(n));
    expect(handed).toHaveLength(4);
  });
});
