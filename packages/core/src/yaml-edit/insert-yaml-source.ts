import type { CST, Pair } from 'yaml';
import { yamlPackage } from '../config/yaml-package.ts';
import { type CollectionToken, type Item, lineEnding, setTrailing, token, trailingOf } from './edit-yaml-source.ts';
import { type FragmentPlace, itemTokens, pairTokens } from './yaml-fragment.ts';

// Adding and replacing whole entries in a collection's tokens. The new text comes from yaml-fragment.ts; the
// tokens around it (other entries, their comments, the brackets of a flow collection) are left as they are.

function placeOf(collection: CollectionToken, newline: string): FragmentPlace {
  return collection.type === 'flow-collection'
    ? { type: 'flow' }
    : { type: 'block', indent: collection.indent, newline };
}

const holdsEntry = (item: Item) => item.key !== undefined || item.value !== undefined;

function near(collection: CollectionToken) {
  return { offset: collection.offset, indent: collection.indent };
}

/**
 * Puts a new item into a collection's tokens before `before` (one of its items), or after its last entry when
 * `before` is null (comment lines that close a block collection, and the trailing comma of a flow one, stay last).
 */
function insertItem(collection: CollectionToken, created: Item, before: Item | null): void {
  const items = collection.items as Item[];
  let at = before ? items.indexOf(before) : items.length;
  if (at < 0) throw new Error('the item to insert before is not in the collection');
  if (!before) while (at > 0 && !holdsEntry(items[at - 1]!)) at--;
  if (collection.type === 'flow-collection') {
    const comma = token('comma', ',', near(collection));
    const layout = (item: Item) => {
      const kept = item.start.filter((part) => part.type !== 'comma');
      return kept.length > 0 ? kept : [token('space', ' ', near(collection))];
    };
    const next = items[at];
    const previous = items[at - 1];
    if (at === 0 && next) {
      created.start = next.start;
      next.start = [comma, ...layout(next)];
    } else if (previous) {
      created.start = [comma, ...layout(previous)];
      if (!next || !holdsEntry(next)) {
        // Appended after the last entry: what stood before the bracket now stands after the new value.
        setTrailing(created, trailingOf(previous));
        setTrailing(previous, []);
      }
    } else {
      // The first entry of `{}` or `[]`.
      created.start = collection.start.source === '{' ? [token('space', ' ', near(collection))] : [];
      setTrailing(created, collection.start.source === '{' ? [token('space', ' ', near(collection))] : []);
    }
    items.splice(at, 0, created);
    return;
  }
  if (at === 0 && items[0]) {
    // The first item's indentation stands before the collection: the new first item takes that place.
    const old = items[0];
    old.start = [...created.start.filter((part) => part.type === 'space').slice(0, 1), ...old.start];
    created.start = created.start[0]?.type === 'space' ? created.start.slice(1) : created.start;
  } else if (items[at - 1] && lineEnding(items[at - 1]!) === '') {
    // The entry before it ends the file without a line break.
    created.start = [token('newline', '\n', near(collection)), ...created.start];
  }
  items.splice(at, 0, created);
}

/** Adds `pair` as the last entry of a mapping's tokens, in its layout. */
export function appendPairInSource(map: CollectionToken, pair: Pair, newline: string): void {
  insertItem(map, pairTokens(pair, placeOf(map, newline)), null);
}

/** Adds `value` as an item of a sequence's tokens, before `before` (an item of it) or last. */
export function insertItemInSource(options: {
  seq: CollectionToken;
  value: unknown;
  before: Item | null;
  newline: string;
}): void {
  const { seq, newline } = options;
  insertItem(seq, itemTokens(options.value, placeOf(seq, newline)), options.before);
}

/**
 * Replaces the value of `item` (a mapping entry or a sequence item of `collection`) with `value`, written anew;
 * its key and the comment lines above it stay.
 */
export function replaceValueInSource(options: {
  collection: CollectionToken;
  item: Item;
  value: unknown;
  newline: string;
}): void {
  const { collection, item, newline } = options;
  const { Pair, Scalar } = yamlPackage();
  const place = placeOf(collection, newline);
  const isPair = item.key !== undefined || (item.sep ?? []).some((part) => part.type === 'map-value-ind');
  if (place.type === 'flow') {
    const trailing = trailingOf(item);
    const created = isPair
      ? pairTokens(new Pair(new Scalar('_'), options.value), place)
      : itemTokens(options.value, place);
    item.value = created.value;
    setTrailing(item, trailing);
    return;
  }
  if (isPair) {
    const created = pairTokens(new Pair(new Scalar('_'), options.value), place);
    item.sep = created.sep;
    item.value = created.value;
    return;
  }
  const created = itemTokens(options.value, place);
  const indicator = item.start.findIndex((part) => part.type === 'seq-item-ind');
  const createdIndicator = created.start.findIndex((part) => part.type === 'seq-item-ind');
  item.start = [...item.start.slice(0, Math.max(indicator, 0)), ...created.start.slice(createdIndicator)];
  item.value = created.value as CST.Token;
}
