import { isDeepStrictEqual } from 'node:util';
import type { Document, Node, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { yamlPackage } from '../config/yaml-package.ts';
import {
  type CollectionToken,
  crlf,
  type Item,
  itemOf,
  removeItem,
  setScalarToken,
  sourceToken,
} from './edit-yaml-source.ts';
import { appendPairInSource, insertItemInSource, replaceValueInSource } from './insert-yaml-source.ts';
import { toNode } from './yaml-fragment.ts';

/** Where a node of the original text stands: the top of a document, or an item of a collection. */
type Place = { type: 'top' } | { type: 'item'; collection: CollectionToken; item: Item; inMap: boolean };

interface Work {
  newline: string;
  /** Token edits, run after the comparison (they change tokens the comparison still reads). */
  edits: (() => void)[];
}

/**
 * The text of `source` with the changes made to `documents` (parsed from `source` and edited with the yaml
 * Document API) and nothing else: each value that differs is written into the source's own tokens, so comments,
 * blank lines, folded and literal blocks, flow maps and lists (`[To Do, Doing, Done]`), quotes, a BOM and CRLF
 * line endings of everything else stay byte for byte. Documents added after the last one are appended. The result
 * must read back as the edited documents; otherwise it throws and nothing should be written.
 *
 * @example
 * const documents = parseAllDocuments(text);
 * documents[0].setIn(['metadata', 'labels', 'tier'], 'gold');
 * await writeFile(file, writeEditedYaml({ source: text, documents }));
 */
export function writeEditedYaml(options: { source: string; documents: readonly Document[] }): string {
  const { Parser, Composer, CST } = yamlPackage();
  const { source, documents } = options;
  const work: Work = { newline: source.includes('\r\n') ? '\r\n' : '\n', edits: [] };
  const tokens = [...new Parser().parse(source)];
  const original = [...new Composer({ keepSourceTokens: true }).compose(tokens)];
  if (documents.length < original.length) throw new Error('removing a whole YAML document is not supported');
  original.forEach((document, index) => {
    compare(document.contents, documents[index]!.contents, { type: 'top' }, work);
  });
  for (const edit of work.edits) edit();
  let text = tokens.map((part) => CST.stringify(part)).join('');
  for (const added of documents.slice(original.length)) {
    let rendered = added.toString({ lineWidth: 0 });
    if (!rendered.startsWith('---')) rendered = `---\n${rendered}`;
    if (text !== '' && !text.endsWith('\n')) text += work.newline;
    text += work.newline === '\r\n' ? crlf(rendered) : rendered;
  }
  checkReadsBack(text, documents);
  return text;
}

function data(node: unknown): unknown {
  return yamlPackage().isNode(node) ? node.toJSON() : node;
}

function compare(before: unknown, edited: unknown, place: Place, work: Work): void {
  const { isMap, isScalar, isSeq } = yamlPackage();
  if (isDeepStrictEqual(data(before), data(edited))) return;
  // `setIn` stores plain data: as nodes it has no style of its own, so it takes the one it replaces.
  const after = edited !== null && typeof edited === 'object' ? toNode(edited) : edited;
  const token = sourceToken<CollectionToken>(before);
  if (isScalar(before) && isScalar(after) && token && typeof after.value === 'string') {
    const inFlow = place.type === 'item' && place.collection.type === 'flow-collection';
    // The edit chose a style (a `|` block for a prompt of several lines): use it; otherwise keep the text's own.
    const type = after.type && after.type !== before.type ? after.type : undefined;
    const afterKey = place.type === 'item' && place.inMap;
    const value = after.value;
    work.edits.push(() => setScalarToken(token, value, { afterKey, inFlow, newline: work.newline, type }));
    return;
  }
  // An edit that turns a flow collection into a block one (or back) rewrites it whole.
  const sameStyle = (a: { flow?: boolean }, b: { flow?: boolean }) =>
    b.flow === undefined || Boolean(a.flow) === b.flow;
  if (isMap(before) && isMap(after) && token && sameStyle(before, after)) return compareMaps(before, after, work);
  if (isSeq(before) && isSeq(after) && token && sameStyle(before, after)) return compareSeqs(before, after, work);
  if (place.type === 'top') throw new Error('replacing a whole YAML document is not supported');
  const { collection, item } = place;
  work.edits.push(() => replaceValueInSource({ collection, item, value: after, newline: work.newline }));
}

function keyOf(pair: Pair): unknown {
  return yamlPackage().isScalar(pair.key) ? pair.key.value : pair.key;
}

function compareMaps(before: YAMLMap, after: YAMLMap, work: Work): void {
  const collection = sourceToken<CollectionToken>(before)!;
  for (const pair of before.items) {
    const item = sourceToken<Item>(pair)!;
    const match = after.items.find((candidate) => keyOf(candidate) === keyOf(pair));
    if (match) compare(pair.value, match.value, { type: 'item', collection, item, inMap: true }, work);
    else work.edits.push(() => removeItem(collection, item));
  }
  for (const pair of after.items) {
    if (!before.items.some((candidate) => keyOf(candidate) === keyOf(pair)))
      work.edits.push(() => appendPairInSource(collection, pair, work.newline));
  }
}

/**
 * Items equal in both stay (a longest common subsequence); between two such, the removed and added items are
 * paired in order and compared, and what is left over is removed or inserted before the next item that stayed.
 */
function compareSeqs(before: YAMLSeq, after: YAMLSeq, work: Work): void {
  const collection = sourceToken<CollectionToken>(before)!;
  const old = before.items.map((node) => JSON.stringify(data(node)));
  const now = after.items.map((node) => JSON.stringify(data(node)));
  const common = commonLengths(old, now);
  const removed: unknown[] = [];
  const added: unknown[] = [];
  const flush = (anchor: unknown) => {
    const next = anchor === null ? null : (itemOf(collection, anchor) ?? null);
    removed.forEach((node, index) => {
      const item = itemOf(collection, node as Node)!;
      if (index < added.length) compare(node, added[index], { type: 'item', collection, item, inMap: false }, work);
      else work.edits.push(() => removeItem(collection, item));
    });
    for (const value of added.slice(removed.length))
      work.edits.push(() => insertItemInSource({ seq: collection, value, before: next, newline: work.newline }));
    removed.length = 0;
    added.length = 0;
  };
  let i = 0;
  let j = 0;
  while (i < old.length || j < now.length) {
    if (i < old.length && j < now.length && old[i] === now[j]) {
      flush(before.items[i]);
      i++;
      j++;
    } else if (j < now.length && (i === old.length || common[i]![j + 1]! >= common[i + 1]![j]!)) {
      added.push(after.items[j++]);
    } else {
      removed.push(before.items[i++]);
    }
  }
  flush(null);
}

/** common[i][j]: the length of the longest common subsequence of a[i..] and b[j..]. */
function commonLengths(a: string[], b: string[]): number[][] {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  return table;
}

function checkReadsBack(text: string, documents: readonly Document[]): void {
  const reread = yamlPackage().parseAllDocuments(text) as Document[];
  const same =
    reread.length === documents.length &&
    reread.every(
      (document, index) => document.errors.length === 0 && isDeepStrictEqual(document.toJS(), documents[index]!.toJS()),
    );
  if (!same) throw new Error('the edited YAML would not read back as the edited documents');
}
