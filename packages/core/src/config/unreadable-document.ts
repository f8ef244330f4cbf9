import type { ParsedObjectRef } from './object-ref.ts';

/**
 * A document that did not become a resource (a YAML error, or a shape too broken to read its kind and name), with
 * whatever kind and name could still be read from it. References that may point at it are not reported as
 * unresolved: the document's own problem is the one to fix.
 */
export interface UnreadableDocument {
  kind?: string;
  name?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kind and name still readable in a broken document's value (a mis-indented `name:` counts too). */
export function unreadableDocument(value: unknown): UnreadableDocument {
  if (!isRecord(value)) return {};
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : value.name;
  return {
    ...(typeof value.kind === 'string' ? { kind: value.kind } : {}),
    ...(typeof name === 'string' ? { name } : {}),
  };
}

/** Whether `ref` could name the resource of one of the broken documents. */
export function mayBeUnreadable(ref: ParsedObjectRef, unreadable: readonly UnreadableDocument[]): boolean {
  return unreadable.some(
    (document) =>
      (document.kind === undefined || document.kind === ref.kind) &&
      (document.name === undefined || document.name === ref.name),
  );
}
