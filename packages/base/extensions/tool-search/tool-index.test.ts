import { describe, expect, test } from 'bun:test';
import type { ToolCatalogItem } from '@goondan/core';
import { summarizeParameters, ToolIndex, tokenize } from './tool-index.ts';

const words = ['alpha', 'ledger', 'invoice', 'queue', 'render', 'sync', 'audit', 'crypto', 'image', 'mail', 'route'];

/** Deterministic decoys: names, descriptions and parameters built from unrelated words. */
function decoys(count: number): ToolCatalogItem[] {
  const list: ToolCatalogItem[] = [];
  for (let index = 0; index < count; index += 1) {
    const a = words[index % words.length]!;
    const b = words[(index * 7 + 3) % words.length]!;
    list.push({
      name: `${a}${index}__${index % 3 === 0 ? 'get' : b}`,
      description: `Handles ${a} and ${b} records number ${index}.`,
      parameters: { type: 'object', properties: { [`${b}Id`]: { type: 'string', description: `The ${b} id` } } },
    });
  }
  return list;
}

const weather: ToolCatalogItem = {
  name: 'weather__get',
  description: 'Current conditions for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name' }, unit: { type: 'string' } },
    required: ['city'],
  },
};
const tricky: ToolCatalogItem[] = [
  { name: 'feather__get', description: 'Bird data.' },
  { name: 'weatherproof__seal', description: 'Seal a window.' },
  { name: 'almanac__read', description: 'Long texts that mention the weather once among many other words here.' },
];
const postcode: ToolCatalogItem = {
  name: 'geo__lookup',
  description: 'Find a place.',
  parameters: { type: 'object', properties: { postalCode: { type: 'string' } } },
};

describe('ToolIndex (minisearch)', () => {
  test("'weather' ranks weather__get first among 1,000 decoys and near misses", () => {
    const index = new ToolIndex();
    index.sync([...decoys(1000), ...tricky, weather]);
    const hits = index.query('weather', 5);
    expect(hits[0]).toEqual({
      name: 'weather__get',
      description: 'Current conditions for a city.',
      score: expect.any(Number),
      parameters: 'city: string (required) — City name; unit: string',
    });
    expect(hits.map((hit) => hit.name)).toContain('weatherproof__seal');
    expect(index.query('wether', 1)[0]!.name).toBe('weather__get'); // fuzzy
    expect(index.query('weath', 1)[0]!.name).toBe('weather__get'); // prefix
  });

  test('parameter names match, camelCase split (postalCode → postal, code)', () => {
    const index = new ToolIndex();
    index.sync([...decoys(200), postcode, weather]);
    expect(index.query('postal code', 1)[0]!.name).toBe('geo__lookup');
    expect(index.query('city', 1)[0]!.name).toBe('weather__get');
  });

  test('sync indexes by difference: added, replaced and removed tools; skipped names stay out', () => {
    const index = new ToolIndex((name) => name.startsWith('tools__'));
    const control = { name: 'tools__enable', description: 'Enable weather tools' };
    index.sync([weather, postcode, control]);
    expect(index.size).toBe(2);
    expect(index.query('enable', 5)).toEqual([]);
    const replaced = { ...weather, description: 'Rain and sun.' };
    index.sync([replaced, tricky[0]!]);
    expect(index.size).toBe(2);
    expect(index.query('postal', 5)).toEqual([]);
    expect(index.query('rain', 1)[0]!.name).toBe('weather__get');
    expect(index.query('conditions', 5)).toEqual([]);
    expect(index.query('bird', 1)[0]!.name).toBe('feather__get');
  });

  test('tokenize splits names on __, _, - and camelCase', () => {
    expect(tokenize('file-system__read_all maxBytes')).toEqual(['file', 'system', 'read', 'all', 'max', 'Bytes']);
  });

  test('summarizeParameters is short and marks required ones', () => {
    expect(summarizeParameters({ name: 'x__y' })).toBe('');
    expect(summarizeParameters(weather)).toBe('city: string (required) — City name; unit: string');
  });
});
