import { describe, expect, test } from 'bun:test';
import type { ToolCatalogItem } from '@goondan/core';
import { exposeCatalog, sameItems } from './expose-catalog.ts';
import { parseExposureConfig } from './exposure-config.ts';

const items = (...names: string[]): ToolCatalogItem[] => names.map((name) => ({ name }));
const names = (list: readonly ToolCatalogItem[]) => list.map((item) => item.name);

describe('exposeCatalog', () => {
  const catalog = items('z__late', 'a__one', 'tools__search', 'b__two', 'tools__reset', 'c__three', 'tools__list');

  test('control tools (fixed order, then other tools__*), then baseline, then enabled, each in catalog order', () => {
    const exposed = exposeCatalog(
      catalog,
      new Set(['b__two', 'a__one']),
      new Map([
        ['z__late', 1],
        ['c__three', 1],
      ]),
    );
    expect(names(exposed)).toEqual([
      'tools__list',
      'tools__reset',
      'tools__search',
      'a__one',
      'b__two',
      'z__late',
      'c__three',
    ]);
  });

  test('names in the sets but not in the catalog are not invented; repeats appear once', () => {
    const exposed = exposeCatalog(
      [...items('a__one'), ...items('a__one')],
      new Set(['x__missing']),
      new Map([['a__one', 1]]),
    );
    expect(names(exposed)).toEqual(['a__one']);
  });

  test('sameItems compares item identity, not names', () => {
    const list = items('a__one');
    expect(sameItems(list, [...list])).toBe(true);
    expect(sameItems(list, items('a__one'))).toBe(false);
  });
});

describe('parseExposureConfig', () => {
  test('expands groups named in the baseline, keeping declaration order without repeats', () => {
    const config = parseExposureConfig({
      baseline: ['greet__hello', 'group:files', 'file-system__read'],
      groups: { files: ['file-system__read', 'file-system__list'] },
    });
    expect(config.baseline).toEqual(['greet__hello', 'file-system__read', 'file-system__list']);
    expect(config.baselineGroups).toEqual(['files']);
    expect(config.defaultTtlMinutes).toBe(60);
  });

  test.each([
    [{ baseline: 'greet__hello' }, 'config.baseline must be a list of strings'],
    [{ baseline: ['hello'] }, "'hello' is neither a tool name"],
    [{ baseline: ['group:x'] }, "'group:x' names no group"],
    [{ groups: { files: ['read'] } }, "'read' is not a tool name"],
    [{ groups: { 'bad name': [] } }, "'bad name' is not a valid group name"],
    [{ defaultTtlMinutes: 0 }, 'config.defaultTtlMinutes must be an integer from 1 to 1440'],
    [{ defaultTtlMinutes: 1441 }, 'config.defaultTtlMinutes must be an integer from 1 to 1440'],
  ])('%j is refused: %s', (config, message) => {
    expect(() => parseExposureConfig(config as never)).toThrow(message);
  });
});
