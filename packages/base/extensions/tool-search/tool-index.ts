import type { ToolCatalogItem } from '@goondan/core';
import MiniSearch from 'minisearch';

/** One ranked tool. */
export interface ToolHit {
  name: string;
  description: string;
  score: number;
  /** `city: string (required) — City name; days: integer`. */
  parameters: string;
}

type Field = 'name' | 'description' | 'params';

const splitter = /[\s\p{P}\p{S}]+/u;

/** Words of a name or text: split on `__`, `_`, `-`, punctuation and camelCase (`maxBytes` → max, bytes). */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(splitter)
    .filter((word) => word.length > 0);
}

function propertiesOf(item: ToolCatalogItem): [string, Record<string, unknown>][] {
  return Object.entries(item.parameters?.properties ?? {}) as [string, Record<string, unknown>][];
}

function firstLine(text: unknown, max: number): string {
  const line = (typeof text === 'string' ? text : '').trim().split('\n', 1)[0]!.trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** A short human summary of a tool's parameters, as search hits show it. */
export function summarizeParameters(item: ToolCatalogItem, max = 400): string {
  const required = new Set(item.parameters?.required ?? []);
  const parts = propertiesOf(item).map(([name, schema]) => {
    const type = Array.isArray(schema.type) ? schema.type.join('|') : String(schema.type ?? 'any');
    const description = firstLine(schema.description, 60);
    return `${name}: ${type}${required.has(name) ? ' (required)' : ''}${description ? ` — ${description}` : ''}`;
  });
  const text = parts.join('; ');
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function fieldText(item: ToolCatalogItem, field: Field): string {
  if (field === 'name') return item.name;
  if (field === 'description') return item.description ?? '';
  return propertiesOf(item)
    .map(([name, schema]) => `${name} ${typeof schema.description === 'string' ? schema.description : ''}`)
    .join(' ');
}

/**
 * A full-text index of tools (minisearch: BM25 with prefix and fuzzy matching), ranking names above descriptions
 * above parameter names and descriptions. `sync` brings it up to date with a list of tools by difference: an
 * unchanged list costs one pass of identity checks, a changed one only indexes what was added or replaced.
 */
export class ToolIndex {
  private readonly search: MiniSearch<ToolCatalogItem>;
  private readonly indexed = new Map<string, ToolCatalogItem>();
  private snapshot: readonly ToolCatalogItem[] = [];

  constructor(private readonly skip: (name: string) => boolean = () => false) {
    this.search = new MiniSearch<ToolCatalogItem>({
      idField: 'name',
      fields: ['name', 'description', 'params'],
      extractField: (item, field) => fieldText(item, field as Field),
      tokenize,
      processTerm: (term) => term.toLowerCase(),
      searchOptions: {
        boost: { name: 3, description: 1.5, params: 1 },
        prefix: (term) => term.length >= 3,
        fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
        combineWith: 'OR',
      },
    });
  }

  get size(): number {
    return this.indexed.size;
  }

  sync(items: readonly ToolCatalogItem[]): void {
    if (sameItems(this.snapshot, items)) return;
    const seen = new Set<string>();
    const added: ToolCatalogItem[] = [];
    for (const item of items) {
      if (this.skip(item.name) || seen.has(item.name)) continue;
      seen.add(item.name);
      const previous = this.indexed.get(item.name);
      if (previous === item) continue;
      if (previous) this.search.discard(item.name);
      this.indexed.set(item.name, item);
      added.push(item);
    }
    for (const name of this.indexed.keys()) {
      if (seen.has(name)) continue;
      this.search.discard(name);
      this.indexed.delete(name);
    }
    this.search.addAll(added);
    this.snapshot = [...items];
  }

  query(text: string, limit: number): ToolHit[] {
    return this.search
      .search(text)
      .slice(0, limit)
      .map((result) => {
        const item = this.indexed.get(result.id as string)!;
        return {
          name: item.name,
          description: firstLine(item.description, 160),
          score: Math.round(result.score * 100) / 100,
          parameters: summarizeParameters(item),
        };
      });
  }
}

function sameItems(left: readonly ToolCatalogItem[], right: readonly ToolCatalogItem[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}
