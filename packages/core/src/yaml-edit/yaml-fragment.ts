import type { CST, Node, Pair } from 'yaml';
import { yamlPackage } from '../config/yaml-package.ts';
import { crlf, type Item } from './edit-yaml-source.ts';

/** Where new tokens go: a block collection whose items stand at column `indent`, or a flow collection. */
export type FragmentPlace = { type: 'block'; indent: number; newline: string } | { type: 'flow' };

// New content is written by the yaml library (the only place that knows how to quote and indent everything),
// as the second item of a small collection made at the right column, then parsed back into CST tokens: the second
// item carries its own indentation and separator, as an item appended to an existing collection must.

/** A yaml node for `value`: itself when it is one, else made from the plain data (`setIn` stores plain data). */
export function toNode(value: unknown): Node {
  const { Document, isNode } = yamlPackage();
  return isNode(value) ? value : (new Document().createNode(value) as Node);
}

function render(contents: Node): string {
  const { Document } = yamlPackage();
  const document = new Document();
  document.contents = contents;
  return document.toString({ lineWidth: 0 });
}

function parsedItem(text: string): Item {
  const { Parser } = yamlPackage();
  const [document] = [...new Parser().parse(text)] as CST.Document[];
  const collection = document?.value as CST.BlockMap | CST.BlockSequence | CST.FlowCollection | undefined;
  const item = collection?.items[1] as Item | undefined;
  if (!item) throw new Error(`could not place the new YAML ${JSON.stringify(text)}`);
  return item;
}

function blockText(rendered: string, place: { indent: number; newline: string }, first: string): string {
  const pad = ' '.repeat(place.indent);
  const lines = rendered.replace(/\n$/, '').split('\n');
  const text = [`${pad}${first}`, ...lines.map((line) => (line === '' ? '' : `${pad}${line}`))].join('\n');
  return place.newline === '\r\n' ? crlf(`${text}\n`) : `${text}\n`;
}

/** The tokens of a new `key: value` entry for a mapping at `place`. */
export function pairTokens(pair: Pair, place: FragmentPlace): Item {
  const { YAMLMap, Scalar, Pair } = yamlPackage();
  const map = new YAMLMap();
  map.flow = place.type === 'flow';
  map.items.push(new Pair(new Scalar('_'), new Scalar(0)), new Pair(pair.key, toNode(pair.value)));
  const rendered = render(map as Node);
  if (place.type === 'flow') return parsedItem(rendered);
  // The dummy first entry is rendered too: drop its line, then put it back as a plain first line.
  return parsedItem(blockText(rendered.slice(rendered.indexOf('\n') + 1), place, '_: 0'));
}

/** The tokens of a new `- value` item for a sequence at `place` (in a flow sequence: the value after its comma). */
export function itemTokens(value: unknown, place: FragmentPlace): Item {
  const { YAMLSeq, Scalar } = yamlPackage();
  const seq = new YAMLSeq();
  seq.flow = place.type === 'flow';
  seq.items.push(new Scalar(0), toNode(value));
  const rendered = render(seq as Node);
  if (place.type === 'flow') return parsedItem(rendered);
  return parsedItem(blockText(rendered.slice(rendered.indexOf('\n') + 1), place, '- 0'));
}
