import { describe, expect, test } from 'bun:test';
import { closestName, closestNames } from './closest-names.ts';

describe('closestNames', () => {
  const candidates = ['weather__get', 'weather__forecast', 'bash__exec', 'files', 'shell'];

  test('typos and near misses, names containing the input first', () => {
    expect(closestNames('wether__get', candidates)).toEqual(['weather__get']);
    expect(closestNames('weather', candidates)).toEqual(['weather__get', 'weather__forecast']);
    expect(closestNames('shel', candidates)).toEqual(['shell']);
    expect(closestName('entyr', ['entry', 'exports'])).toBe('entry');
    expect(closestName('--jsno', ['--json', '--bundle'])).toBe('--json');
  });

  test('nothing when nothing is close', () => {
    expect(closestNames('kanban__add_card', candidates)).toEqual([]);
    expect(closestName('zzz', candidates)).toBeUndefined();
    expect(closestNames('', candidates)).toEqual([]);
  });
});
