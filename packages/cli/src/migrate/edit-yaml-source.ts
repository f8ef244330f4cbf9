import { CST, type Document, isMap, isScalar, parse, type YAMLMap } from 'yaml';

/** A path into a document, as `Document.getIn` takes it. */
export type YamlPath = readonly (string | number)[];

type Item = CST.CollectionItem;
type SourceToken = CST.SourceToken;
type MapToken = CST.BlockMap | CST.FlowCollection;

// Edits go to the CST tokens the document was composed from (`keepSourceTokens`), never through the Document's
// own toString: that re-renders every line (a BOM dropped, CRLF made LF, `[name]` padded to `[ name ]`), while
// the tokens are the text itself, so whatever is not edited stays byte for byte as it was.

function sourceToken<T = CST.Token>(node: unknown): T | undefined {
  return (node as { srcToken?: T } | null | undefined)?.srcToken;
}

function token(type: SourceToken['type'], source: string, near: { offset: number; indent: number }): SourceToken {
  return { type, source, offset: near.offset, indent: near.indent } as SourceToken;
}

/** Whether `value`, written as a plain scalar, reads back as that same string (not `true`, `null`, `12`). */
function readsAsPlainString(value: string): boolean {
  try {
    return parse(value) === value;
  } catch {
    return false;
  }
}

function mapAt(document: Document.Parsed, path: YamlPath): YAMLMap {
  const node = path.length === 0 ? document.contents : document.getIn(path, true);
  if (!isMap(node) || !sourceToken(node)) throw new Error(`no mapping at ${path.join('.') || 'the top'}`);
  return node;
}

function pairItem(map: YAMLMap, key: string | number): Item | undefined {
  const pair = map.items.find((entry) => (isScalar(entry.key) ? entry.key.value : entry.key) === key);
  return sourceToken<Item>(pair);
}

/**
 * Sets the scalar at `path` to `value` in the document's source tokens, in the quoting the scalar had (plain text
 * that would read as another type is double-quoted). A missing key is added first in its mapping.
 */
export function setInSource(document: Document.Parsed, path: YamlPath, value: string): void {
  const target = sourceToken(document.getIn(path, true));
  if (!target) {
    insertFirst(sourceToken<MapToken>(mapAt(document, path.slice(0, -1)))!, String(path.at(-1)), value);
    return;
  }
  const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
  const inFlow = sourceToken(parent)?.type === 'flow-collection';
  const plain = target.type === 'scalar' || target.type === 'block-scalar' || !('source' in target);
  const type =
    plain && !readsAsPlainString(value) ? 'QUOTE_DOUBLE' : target.type === 'block-scalar' ? 'PLAIN' : undefined;
  CST.setScalarValue(target, value, { afterKey: true, inFlow, ...(type ? { type } : {}) });
}

/** Removes the key at `path` from its mapping in the document's source tokens; comment lines above it stay. */
export function deleteInSource(document: Document.Parsed, path: YamlPath): void {
  const map = mapAt(document, path.slice(0, -1));
  const collection = sourceToken<MapToken>(map)!;
  const item = pairItem(map, path.at(-1)!);
  const index = item ? (collection.items as Item[]).indexOf(item) : -1;
  if (index < 0) throw new Error(`no key at ${path.join('.')}`);
  if (collection.type === 'block-map') removeBlockItem(collection, index);
  else removeFlowItem(collection, index);
}

function lineEnding(item: Item): string {
  const text = CST.stringify(item);
  return text.endsWith('\r\n') ? '\r\n' : text.endsWith('\n') ? '\n' : '';
}

function removeBlockItem(map: CST.BlockMap, index: number): void {
  const [removed] = map.items.splice(index, 1) as [Item];
  if (map.items.length === 0) {
    // `spec:\n  runtime: node\n` keeps `spec` a mapping: `spec:\n  {}\n`.
    const newline = lineEnding(removed);
    const near = { offset: map.offset, indent: map.indent };
    const empty: CST.FlowCollection = {
      type: 'flow-collection',
      offset: map.offset,
      indent: map.indent,
      start: token('flow-map-start', '{', near),
      items: [],
      end: [token('flow-map-end', '}', near), ...(newline ? [token('newline', newline, near)] : [])],
    };
    Object.assign(map, empty);
    return;
  }
  const next = map.items[index];
  // The comment lines above the key (its start, up to the last line break) are not the key's to take along.
  const lastBreak = removed.start.findLastIndex((part) => part.type === 'newline');
  const comments = index === 0 ? [] : removed.start.slice(0, lastBreak + 1);
  if (!next) {
    if (comments.length > 0) map.items.push({ start: comments });
    return;
  }
  // The first key's indentation stands before the mapping (after `- ` or its parent's line break), so the key
  // that takes its place drops its own.
  const rest = index === 0 && next.start[0]?.type === 'space' ? next.start.slice(1) : next.start;
  next.start = [...comments, ...rest];
}

function removeFlowItem(collection: CST.FlowCollection, index: number): void {
  const [removed] = collection.items.splice(index, 1) as [Item];
  const next = collection.items[index];
  const previous = collection.items[index - 1];
  if (index === 0 && next) {
    // `{ a: 1, b: 2 }` → `{ b: 2 }`: the next item takes the removed one's leading space, without its comma.
    const comma = next.start.findIndex((part) => part.type === 'comma');
    let from = comma + 1;
    while (next.start[from]?.type === 'space') from++;
    next.start = [...removed.start, ...next.start.slice(from)];
  } else if (!next && previous?.value) {
    // `{ a: 1, b: 2 }` → `{ a: 1 }`: what stood between the removed value and the bracket stays. In a flow
    // collection every value is a flow scalar, an alias or a flow collection, each with its own trailing `end`.
    const value = removed.value as { type: string; end?: SourceToken[] } | undefined;
    const after = value?.type === 'flow-collection' ? (value.end ?? []).slice(1) : (value?.end ?? []);
    const kept = previous.value as { end?: SourceToken[] };
    kept.end = [...(kept.end ?? []), ...after];
  }
}

/** Adds `key: value` as the first entry of a mapping, in its layout and line ending. */
function insertFirst(collection: MapToken, key: string, value: string): void {
  const first = collection.items[0];
  if (!first) throw new Error('cannot add a key to an empty mapping');
  const near = { offset: collection.offset, indent: collection.indent };
  const keyToken = CST.createScalarToken(key, { indent: collection.indent, implicitKey: true, end: [] });
  const separator = [token('map-value-ind', ':', near), token('space', ' ', near)];
  const inFlow = collection.type === 'flow-collection';
  const type = readsAsPlainString(value) ? 'PLAIN' : 'QUOTE_DOUBLE';
  if (inFlow) {
    const valueToken = CST.createScalarToken(value, { indent: collection.indent, inFlow, end: [], type });
    collection.items.unshift({ start: first.start, key: keyToken, sep: separator, value: valueToken });
    first.start = [token('comma', ',', near), token('space', ' ', near)];
    return;
  }
  const newline = lineEnding(first) || '\n';
  const end = [token('newline', newline, near)];
  const valueToken = CST.createScalarToken(value, { indent: collection.indent, end, type });
  collection.items.unshift({ start: first.start, key: keyToken, sep: separator, value: valueToken });
  first.start = collection.indent > 0 ? [token('space', ' '.repeat(collection.indent), near)] : [];
}
