import { describe, expect, test } from 'bun:test';
import { decodeStoredJson, encodeStoredJson } from './stored-json.ts';

function roundTrip(value: unknown): unknown {
  return decodeStoredJson(encodeStoredJson(value));
}

describe('stored JSON', () => {
  test('keeps bytes, array buffers, dates, URLs, bigints and non-finite numbers', () => {
    const value = {
      bytes: new Uint8Array([1, 2, 3]),
      buffer: new Uint8Array([9, 8]).buffer,
      when: new Date('2026-01-02T03:04:05.678Z'),
      url: new URL('https://example.com/x?y=1'),
      big: 12345678901234567890n,
      numbers: [Number.NaN, Number.POSITIVE_INFINITY, -0.5],
    };
    const back = roundTrip(value) as typeof value;
    expect(back.bytes).toBeInstanceOf(Uint8Array);
    expect([...back.bytes]).toEqual([1, 2, 3]);
    expect(back.buffer).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(back.buffer)]).toEqual([9, 8]);
    expect(back.when.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(back.url.href).toBe('https://example.com/x?y=1');
    expect(back.big).toBe(12345678901234567890n);
    expect(back.numbers).toEqual([Number.NaN, Number.POSITIVE_INFINITY, -0.5]);
  });

  test('a Buffer comes back as its bytes', () => {
    const back = roundTrip({ data: Buffer.from('hi') }) as { data: Uint8Array };
    expect(new TextDecoder().decode(back.data)).toBe('hi');
  });

  test('objects that look like tags come back unchanged', () => {
    const value = { a: { $bytes: 'AQID' }, b: { $object: { $date: 'x' } }, c: { $url: 1, other: 2 } };
    expect(roundTrip(value)).toEqual(value);
  });

  test('drops undefined properties like JSON, but keeps undefined array slots', () => {
    expect(roundTrip({ a: undefined, b: 1 })).toEqual({ b: 1 });
    expect(roundTrip([1, undefined, null, 3])).toEqual([1, undefined, null, 3]);
  });

  test('a __proto__ key is stored as data, not as a prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}');
    const back = roundTrip(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(['__proto__', 'x']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('refuses cyclic values', () => {
    const value: Record<string, unknown> = {};
    value.self = value;
    expect(() => encodeStoredJson(value)).toThrow(/cyclic/);
  });

  test('plain JSON is written as JSON.stringify writes it; deep values take the tagged path', () => {
    const plain = { role: 'tool', content: [{ type: 'text', n: -0.5, ok: true, none: null, gone: undefined }] };
    expect(encodeStoredJson(plain)).toBe(JSON.stringify(plain));
    let deep: unknown = 'leaf';
    for (let depth = 0; depth < 100; depth += 1) deep = { next: deep };
    expect(roundTrip(deep)).toEqual(deep);
  });

  test('a value seen twice without a cycle is fine', () => {
    const shared = { n: 1 };
    expect(roundTrip([shared, shared])).toEqual([{ n: 1 }, { n: 1 }]);
  });
});
