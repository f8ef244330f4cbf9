import type { JsonValue } from '../types.ts';

/**
 * Turns whatever a handler returned into a JSON value without throwing: undefined → null, BigInt → string,
 * functions and symbols → a description, cycles → "[Circular]", Date → ISO string, Map/Set → object/array,
 * typed arrays → base64, Error → { name, message }, non-finite numbers → null.
 */
export function toJsonSafe(value: unknown, maxDepth = 64): JsonValue {
  // The common outputs need no walk: null, strings, booleans, finite numbers.
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const ancestors = new Set<object>();
  const visit = (current: unknown, depth: number): JsonValue => {
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return current;
      case 'number':
        return Number.isFinite(current) ? current : null;
      case 'bigint':
        return current.toString();
      case 'undefined':
        return null;
      case 'function':
        return `[Function ${current.name || 'anonymous'}]`;
      case 'symbol':
        return current.toString();
    }
    if (current === null) return null;
    const object = current as object;
    if (ancestors.has(object)) return '[Circular]';
    if (depth >= maxDepth) return '[MaxDepth]';
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
    if (object instanceof Error) return { name: object.name, message: object.message };
    if (ArrayBuffer.isView(object)) {
      return Buffer.from(object.buffer, object.byteOffset, object.byteLength).toString('base64');
    }
    if (object instanceof ArrayBuffer) return Buffer.from(object).toString('base64');
    ancestors.add(object);
    try {
      if (Array.isArray(object)) return object.map((item) => visit(item, depth + 1));
      if (object instanceof Set) return [...object].map((item) => visit(item, depth + 1));
      if (object instanceof Map) {
        const result: Record<string, JsonValue> = {};
        for (const [key, item] of object) result[String(key)] = visit(item, depth + 1);
        return result;
      }
      const toJSON = (object as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return visit(toJSON.call(object), depth + 1);
      const result: Record<string, JsonValue> = {};
      for (const key of Object.keys(object)) {
        const item = (object as Record<string, unknown>)[key];
        if (typeof item === 'function' || typeof item === 'symbol' || item === undefined) continue;
        result[key] = visit(item, depth + 1);
      }
      return result;
    } finally {
      ancestors.delete(object);
    }
  };
  return visit(value, 0);
}
