import type { JsonObject } from '../types.ts';

/** A reference taken apart: `"Tool/bash"` and `{ kind: 'Tool', name: 'bash' }` both give `{ kind: 'Tool', name: 'bash' }`. */
export interface ParsedObjectRef {
  kind: string;
  name: string;
  /** `{ kind, name, package }`: the npm package the resource must come from (docs/packages.md). */
  package?: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

/** The key resources are stored under in `Bundle.resources`: `refKey('Tool', 'bash')` → `"Tool/bash"`. */
export function refKey(kind: string, name: string): string {
  return `${kind}/${name}`;
}

/**
 * Reads an ObjectRef written as `"Kind/name"`, `{ kind, name }` or `{ kind, name, package }`; null when it is none.
 * @example parseObjectRef({ kind: 'Tool', name: 'bash', package: '@goondan/base' })
 */
export function parseObjectRef(ref: unknown): ParsedObjectRef | null {
  if (typeof ref === 'string') {
    const parts = ref.split('/');
    if (parts.length !== 2) return null;
    const [kind, name] = parts as [string, string];
    return kind && name ? { kind, name } : null;
  }
  if (!isPlainObject(ref) || !hasOnlyKeys(ref, ['kind', 'name', 'package'])) return null;
  const { kind, name } = ref;
  if (!(typeof kind === 'string' && kind && typeof name === 'string' && name)) return null;
  if (ref.package === undefined) return { kind, name };
  return typeof ref.package === 'string' && ref.package ? { kind, name, package: ref.package } : null;
}

/**
 * Reads an entry of Agent `spec.tools` / `spec.extensions`: an ObjectRef, or `{ ref: ObjectRef, config? }`.
 * @example parseRefEntry({ ref: 'Tool/http-fetch', config: { allowPrivateNetwork: true } })
 */
export function parseRefEntry(entry: unknown): { ref: ParsedObjectRef; config?: JsonObject } | null {
  if (!isPlainObject(entry) || !('ref' in entry)) {
    const ref = parseObjectRef(entry);
    return ref ? { ref } : null;
  }
  if (!hasOnlyKeys(entry, ['ref', 'config'])) return null;
  const ref = parseObjectRef(entry.ref);
  if (!ref) return null;
  if (entry.config === undefined) return { ref };
  return isPlainObject(entry.config) ? { ref, config: entry.config as JsonObject } : null;
}
