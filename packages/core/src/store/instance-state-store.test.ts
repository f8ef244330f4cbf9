import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { InstanceStateStore } from './instance-state-store.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

describe('InstanceStateStore', () => {
  test('get returns what set stored, across a reopen', () => {
    const path = join(temp.make(), 'instance.db');
    const db = openInstanceDatabase(path);
    const state = new InstanceStateStore(db);
    const value = { jobs: [{ handle: 'job_1', tool: 'bash__run' }], count: 2, ok: true, note: null, text: '한국어' };
    state.setState('runtime/pending-jobs', value);
    state.setState('flag', false);
    expect(state.getState('runtime/pending-jobs')).toEqual(value);
    db.close();
    const reopened = new InstanceStateStore(openInstanceDatabase(path));
    expect(reopened.getState('runtime/pending-jobs')).toEqual(value);
    expect(reopened.getState('flag')).toBe(false);
  });

  test('a missing key is undefined; null is a value', () => {
    const state = new InstanceStateStore(openInstanceDatabase(join(temp.make(), 'instance.db')));
    expect(state.getState('nope')).toBeUndefined();
    state.setState('empty', null);
    expect(state.getState('empty')).toBeNull();
  });

  test('set overwrites, delete removes', () => {
    const state = new InstanceStateStore(openInstanceDatabase(join(temp.make(), 'instance.db')));
    state.setState('k', 1);
    state.setState('k', 2);
    expect(state.getState('k')).toBe(2);
    expect(state.deleteState('k')).toBe(true);
    expect(state.deleteState('k')).toBe(false);
    expect(state.getState('k')).toBeUndefined();
  });

  test('lists keys by prefix, treating % and _ literally', () => {
    const state = new InstanceStateStore(openInstanceDatabase(join(temp.make(), 'instance.db')));
    for (const key of ['extension:memory/a', 'extension:memory/b', 'extension:other/a', 'ext_x', 'ext%y']) {
      state.setState(key, 1);
    }
    expect(state.stateKeys('extension:memory/')).toEqual(['extension:memory/a', 'extension:memory/b']);
    expect(state.stateKeys('ext_')).toEqual(['ext_x']);
    expect(state.stateKeys()).toHaveLength(5);
  });

  test('refuses undefined instead of storing something else', () => {
    const state = new InstanceStateStore(openInstanceDatabase(join(temp.make(), 'instance.db')));
    expect(() => state.setState('k', undefined as never)).toThrow(TypeError);
  });
});
