import { GoondanError } from '../errors/goondan-error.ts';

/**
 * JSON for values that plain JSON would change: AI SDK content parts carry Uint8Array / ArrayBuffer data,
 * URLs and Dates, and tool output may hold non-finite numbers or bigints. Each becomes a one-key object whose key
 * is a tag (`{"$bytes": "<base64>"}`); a stored object that happens to look like a tag is wrapped in `$object`,
 * so every value decodes to what was encoded. The text stays readable JSON for `json_extract` and the CLI.
 * Like JSON, object properties holding undefined or functions are dropped, and `toJSON` is honoured.
 */

const tags = new Set(['$bytes', '$arrayBuffer', '$date', '$url', '$bigint', '$number', '$undefined', '$object']);

/** Objects and arrays nested deeper than this are refused (E_STORE_VALUE_INVALID). */
export const MAX_STORED_DEPTH = 1_000;

type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'base64'));
}

/** Plain assignment of `__proto__` would replace the prototype instead of storing a property. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function encode(value: unknown, path: Set<object>): Encoded | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : { $number: String(value) };
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (typeof value !== 'object') return undefined;
  if (value instanceof Uint8Array) return { $bytes: toBase64(value) };
  if (value instanceof ArrayBuffer) return { $arrayBuffer: toBase64(new Uint8Array(value)) };
  if (value instanceof Date) return { $date: Number.isNaN(value.getTime()) ? null : value.toISOString() };
  if (value instanceof URL) return { $url: value.href };
  if (path.has(value)) {
    throw new GoondanError('E_STORE_VALUE_INVALID', 'Cannot store a value that contains itself (cyclic reference).');
  }
  // Below this, JSON.stringify or the decoding of the row would overflow the stack: refused whole, nothing written.
  if (path.size >= MAX_STORED_DEPTH) {
    throw new GoondanError(
      'E_STORE_VALUE_INVALID',
      `Cannot store a value nested deeper than ${MAX_STORED_DEPTH} levels of objects and arrays.`,
    );
  }
  path.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item) => {
        const encoded = encode(item, path);
        return encoded === undefined ? { $undefined: true } : encoded;
      });
    }
    const withToJson = value as { toJSON?: unknown };
    if (typeof withToJson.toJSON === 'function') return encode(withToJson.toJSON(), path);
    const out: { [key: string]: Encoded } = {};
    const keys = Object.keys(value);
    for (const key of keys) {
      const encoded = encode((value as Record<string, unknown>)[key], path);
      if (encoded !== undefined) setOwn(out, key, encoded);
    }
    const outKeys = Object.keys(out);
    return outKeys.length === 1 && tags.has(outKeys[0]!) ? { $object: out } : out;
  } finally {
    path.delete(value);
  }
}

function decodeTagged(tag: string, payload: Encoded): unknown {
  switch (tag) {
    case '$bytes':
      return fromBase64(String(payload));
    case '$arrayBuffer':
      return fromBase64(String(payload)).buffer;
    case '$date':
      return new Date(payload === null ? Number.NaN : String(payload));
    case '$url':
      return new URL(String(payload));
    case '$bigint':
      return BigInt(String(payload));
    case '$number':
      return Number(payload);
    case '$undefined':
      return undefined;
    default:
      return decodeObject(payload as { [key: string]: Encoded });
  }
}

function decodeObject(object: { [key: string]: Encoded }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(object)) setOwn(out, key, decode(object[key]!));
  return out;
}

function decode(value: Encoded): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(decode);
  const keys = Object.keys(value);
  if (keys.length === 1 && tags.has(keys[0]!)) return decodeTagged(keys[0]!, value[keys[0]!]!);
  return decodeObject(value);
}

/** Deeper than this the plain-JSON check gives up and `encode` (which finds cycles) does the work. */
const MAX_PLAIN_DEPTH = 64;

/**
 * True when JSON.stringify already gives what `encode` would: only plain objects and arrays, strings, finite
 * numbers, booleans and null, no key that is a tag, no `toJSON`. Most messages are like that; checking walks them
 * without copying, where `encode` builds a tagged copy of every object.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth >= MAX_PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlainJson(item, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (tags.has(key) || key === 'toJSON') return false;
    const entry = (value as Record<string, unknown>)[key];
    // JSON.stringify and `encode` both leave out a property holding undefined.
    if (entry !== undefined && !isPlainJson(entry, depth + 1)) return false;
  }
  return true;
}

/** Encodes any value as JSON text that `decodeStoredJson` turns back into an equal value. */
export function encodeStoredJson(value: unknown): string {
  if (value !== undefined && isPlainJson(value, 0)) return JSON.stringify(value);
  return JSON.stringify(encode(value, new Set()) ?? null);
}

/** The inverse of `encodeStoredJson`. */
export function decodeStoredJson(text: string): unknown {
  return decode(JSON.parse(text) as Encoded);
}
