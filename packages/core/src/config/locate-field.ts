import type { Document, LineCounter, Node as YamlNode } from 'yaml';
import { yamlPackage } from './yaml-package.ts';

/** A field inside a document, as keys and array indexes: `['spec', 'exports', 1, 'name']`. */
export type FieldPath = readonly (string | number)[];

/** One YAML document of a bundle file, with what is needed to point at its fields. */
export interface YamlDocument {
  /** Path relative to the bundle root, with forward slashes. */
  file: string;
  absoluteFile: string;
  doc: Document.Parsed;
  lineCounter: LineCounter;
  /** The document as plain data. */
  value: unknown;
}

export interface FieldPosition {
  line: number;
  column: number;
  /** False when the field does not exist and the position is that of its nearest existing parent. */
  exact: boolean;
}

const simpleKeyPattern = /^[A-Za-z_$][\w$-]*$/;

/** `['spec', 'exports', 1, 'name']` → `spec.exports[1].name`; the document itself is the empty string. */
export function formatFieldPath(path: FieldPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (simpleKeyPattern.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** `/spec/exports/1` → `['spec', 'exports', 1]`, with indexes as numbers where the data holds an array. */
export function pointerToPath(pointer: string, root: unknown): (string | number)[] {
  if (pointer === '') return [];
  const path: (string | number)[] = [];
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current)) {
      path.push(Number(segment));
      current = current[Number(segment)];
    } else {
      path.push(segment);
      current = (current as Record<string, unknown> | undefined)?.[segment];
    }
  }
  return path;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range ? range[0] : undefined;
}

function childOf(
  node: YamlNode | null,
  segment: string | number,
  doc: Document.Parsed,
): { key?: YamlNode; value: YamlNode | null } | undefined {
  const { isAlias, isMap, isScalar, isSeq } = yamlPackage();
  const target = isAlias(node) ? node.resolve(doc) : node;
  if (isMap(target)) {
    for (const pair of target.items) {
      const key = pair.key as YamlNode | null;
      const keyValue = isScalar(key) ? key.value : key;
      if (String(keyValue) === String(segment)) return { key: key ?? undefined, value: pair.value as YamlNode | null };
    }
    return undefined;
  }
  if (isSeq(target) && typeof segment === 'number') {
    const item = target.items[segment];
    return item === undefined ? undefined : { value: item as YamlNode | null };
  }
  return undefined;
}

/**
 * Line and column (1-based) of a field. With `at: 'key'` an existing map entry is located at its key rather than its
 * value. A missing field falls back to its nearest existing parent, located at the parent's key when it has one.
 */
export function locateField(
  document: YamlDocument,
  path: FieldPath,
  options: { at?: 'key' | 'value' } = {},
): FieldPosition {
  const { doc, lineCounter } = document;
  const { isMap, isScalar, isSeq } = yamlPackage();
  let node = doc.contents as YamlNode | null;
  let key: YamlNode | undefined;
  let exact = true;
  for (const segment of path) {
    const child = childOf(node, segment, doc);
    if (!child) {
      exact = false;
      break;
    }
    node = child.value;
    key = child.key;
  }
  // A value like `entry:` with nothing after it has an empty range at the end of the line, and a block collection
  // starts on the next line: point at the key then.
  const emptyValue = node === null || (isScalar(node) && node.range?.[0] === node.range?.[1]);
  const preferKey = !exact || options.at === 'key' || emptyValue || isMap(node) || isSeq(node);
  const offset = (preferKey ? rangeStart(key) : undefined) ?? rangeStart(node) ?? rangeStart(key) ?? 0;
  const position = lineCounter.linePos(offset);
  return { line: Math.max(1, position.line), column: Math.max(1, position.col), exact };
}
