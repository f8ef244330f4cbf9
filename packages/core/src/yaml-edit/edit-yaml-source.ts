import type { CST, Document, Scalar, YAMLMap } from 'yaml';
import { yamlPackage } from '../config/yaml-package.ts';

/** A path into a document, as `Document.getIn` takes it. */
export type YamlPath = readonly (string | number)[];

export type Item = CST.CollectionItem;
type SourceToken = CST.SourceToken;
export type CollectionToken = CST.BlockMap | CST.BlockSequence | CST.FlowCollection;

// Edits go to the CST tokens the document was composed from (`keepSourceTokens`), never through the Document's
// own toString: that re-renders every line (a BOM dropped, CRLF made LF, `[name]` padded to `[ name ]`, folded
// `>-` text joined into one line), while the tokens are the text itself, so whatever is not edited stays byte for
// byte as it was.

export function sourceToken<T = CST.Token>(node: unknown): T | undefined {
  return (node as { srcToken?: T } | null | undefined)?.srcToken;
}

export function token(
  type: SourceToken['type'],
  source: string,
  near: { offset: number; indent: number },
): SourceToken {
  return { type, source, offset: near.offset, indent: near.indent } as SourceToken;
}

/** Whether `value`, written as a plain scalar, reads back as that same string (not `true`, `null`, `12`). */
export function readsAsPlainString(value: string): boolean {
  try {
    return yamlPackage().parse(value) === value;
  } catch {
    return false;
  }
}

/**
 * Writes `value` into a scalar token in place. The token keeps its quoting unless the value needs another: plain
 * text that would read as another type is double-quoted, several lines become a `|` block (double-quoted inside a
 * flow collection, where blocks cannot go); `type` asks for a style. Block scalars follow the file's line ending.
 */
export function setScalarToken(
  target: CST.Token,
  value: string,
  context: { afterKey: boolean; inFlow: boolean; newline: string; type?: Scalar.Type },
): void {
  const { inFlow } = context;
  const multiLine = value.includes('\n');
  const current = 'type' in target ? target.type : 'scalar';
  const plain = current === 'scalar' || !('source' in target);
  let type = context.type;
  if (type?.startsWith('BLOCK') && inFlow) type = 'QUOTE_DOUBLE';
  if (!type) {
    if (current === 'block-scalar' && !multiLine) type = readsAsPlainString(value) ? 'PLAIN' : 'QUOTE_DOUBLE';
    else if (plain && multiLine) type = inFlow ? 'QUOTE_DOUBLE' : 'BLOCK_LITERAL';
    else if (plain && !readsAsPlainString(value)) type = 'QUOTE_DOUBLE';
  }
  yamlPackage().CST.setScalarValue(target, value, { afterKey: context.afterKey, inFlow, ...(type ? { type } : {}) });
  if (target.type === 'block-scalar' && context.newline === '\r\n') target.source = crlf(target.source);
}

export function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

function mapAt(document: Document.Parsed, path: YamlPath): YAMLMap {
  const node = path.length === 0 ? document.contents : document.getIn(path, true);
  if (!yamlPackage().isMap(node) || !sourceToken(node)) throw new Error(`no mapping at ${path.join('.') || 'the top'}`);
  return node;
}

/** The collection item (`key: value` or `- value`) holding `node` in `collection`, found by its source tokens. */
export function itemOf(collection: CollectionToken, node: unknown): Item | undefined {
  const held = sourceToken(node);
  return (collection.items as Item[]).find((item) => item === held || (held !== undefined && item.value === held));
}

function pairItem(map: YAMLMap, key: string | number): Item | undefined {
  const { isScalar } = yamlPackage();
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
    insertFirst(
      sourceToken<CST.BlockMap | CST.FlowCollection>(mapAt(document, path.slice(0, -1)))!,
      String(path.at(-1)),
      value,
    );
    return;
  }
  const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
  const inFlow = sourceToken(parent)?.type === 'flow-collection';
  setScalarToken(target, value, { afterKey: true, inFlow, newline: lineEndingOf(target) });
}

/** Removes the key at `path` from its mapping in the document's source tokens; comment lines above it stay. */
export function deleteInSource(document: Document.Parsed, path: YamlPath): void {
  const map = mapAt(document, path.slice(0, -1));
  const collection = sourceToken<CollectionToken>(map)!;
  const item = pairItem(map, path.at(-1)!);
  if (!item || !removeItem(collection, item)) throw new Error(`no key at ${path.join('.')}`);
}

/** Removes one item (`key: value` or `- value`) of a collection's tokens; false when it is not there. */
export function removeItem(collection: CollectionToken, item: Item): boolean {
  const index = (collection.items as Item[]).indexOf(item);
  if (index < 0) return false;
  if (collection.type === 'flow-collection') removeFlowItem(collection, index);
  else removeBlockItem(collection, index);
  return true;
}

function lineEndingOf(part: CST.Token | Item): string {
  const text = yamlPackage().CST.stringify(part as CST.Token);
  return text.includes('\r\n') ? '\r\n' : '\n';
}

export function lineEnding(item: Item): string {
  const text = yamlPackage().CST.stringify(item);
  return text.endsWith('\r\n') ? '\r\n' : text.endsWith('\n') ? '\n' : '';
}

function removeBlockItem(collection: CST.BlockMap | CST.BlockSequence, index: number): void {
  const [removed] = collection.items.splice(index, 1) as [Item];
  // The comment lines above the item (its start, up to the last line break) are not the item's to take along.
  const lastBreak = removed.start.findLastIndex((part) => part.type === 'newline');
  const comments = index === 0 ? [] : removed.start.slice(0, lastBreak + 1);
  if (!collection.items.some((item) => item.key || item.value)) {
    // `spec:\n  runtime: node\n` keeps `spec` a mapping: `spec:\n  {}\n` (a sequence: `[]`).
    const newline = lineEnding(removed);
    const near = { offset: collection.offset, indent: collection.indent };
    const [open, close] = collection.type === 'block-map' ? ['{', '}'] : ['[', ']'];
    const empty: CST.FlowCollection = {
      type: 'flow-collection',
      offset: collection.offset,
      indent: collection.indent,
      start: token(collection.type === 'block-map' ? 'flow-map-start' : 'flow-seq-start', open, near),
      items: [],
      end: [
        token(collection.type === 'block-map' ? 'flow-map-end' : 'flow-seq-end', close, near),
        ...(newline ? [token('newline', newline, near)] : []),
        ...comments,
        ...collection.items.flatMap((item) => item.start),
      ],
    };
    for (const key of Object.keys(collection)) delete (collection as unknown as Record<string, unknown>)[key];
    Object.assign(collection, empty);
    return;
  }
  const next = collection.items[index];
  if (!next) {
    if (comments.length > 0) collection.items.push({ start: comments });
    return;
  }
  // The first item's indentation stands before the collection (after `- ` or its parent's line break), so the
  // item that takes its place drops its own.
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
  } else if (!next && previous) {
    // `{ a: 1, b: 2 }` → `{ a: 1 }`: what stood between the removed value and the bracket stays.
    setTrailing(previous, trailingOf(removed));
  }
}

/**
 * What stands between a flow item's value and the next comma or the bracket. In a flow collection every value is
 * a flow scalar, an alias or a flow collection, each with its own trailing `end`.
 */
export function trailingOf(item: Item): SourceToken[] {
  const value = (item.value ?? item.key) as { type: string; end?: SourceToken[] } | undefined;
  return value?.type === 'flow-collection' ? (value.end ?? []).slice(1) : (value?.end ?? []);
}

/** Replaces what stands after a flow item's value (see `trailingOf`). */
export function setTrailing(item: Item, trailing: SourceToken[]): void {
  const value = (item.value ?? item.key) as { type: string; end?: CST.Token[] } | undefined;
  if (!value) return;
  if (value.type === 'flow-collection') value.end = [...(value.end ?? []).slice(0, 1), ...trailing];
  else value.end = trailing;
}

/** Adds `key: value` as the first entry of a mapping, in its layout and line ending. */
function insertFirst(collection: CST.BlockMap | CST.FlowCollection, key: string, value: string): void {
  const { CST } = yamlPackage();
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
