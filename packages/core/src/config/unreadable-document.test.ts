import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { loadBundle } from './load-bundle.ts';
import { mayBeUnreadable, unreadableDocument } from './unreadable-document.ts';

describe('references to documents that did not parse', () => {
  test('are not reported as unresolved; the YAML and shape errors are, and a true dangling reference still is', async () => {
    const { problems } = await loadBundle({ dir: join(import.meta.dir, '__fixtures__', 'bad-indent') });
    const brief = problems.map((problem) => [problem.code, problem.line]);
    expect(brief).toContainEqual(['E_YAML_PARSE', 10]);
    expect(problems.some((problem) => problem.code === 'E_RESOURCE_INVALID' && problem.line <= 15)).toBe(true);
    const unresolved = problems.filter((problem) => problem.code === 'E_REF_UNRESOLVED');
    expect(unresolved.map((problem) => [problem.line, problem.message.split(',')[0]])).toEqual([
      [30, 'spec.tools[2] refers to Tool/nothere'],
    ]);
  });

  test('a broken document matches references by the kind and name still readable in it', () => {
    const memo = unreadableDocument({ kind: 'Tool', metadata: null, name: 'memo' });
    expect(memo).toEqual({ kind: 'Tool', name: 'memo' });
    expect(mayBeUnreadable({ kind: 'Tool', name: 'memo' }, [memo])).toBe(true);
    expect(mayBeUnreadable({ kind: 'Tool', name: 'other' }, [memo])).toBe(false);
    expect(mayBeUnreadable({ kind: 'Model', name: 'memo' }, [memo])).toBe(false);
    // Nothing readable: it could be anything.
    expect(mayBeUnreadable({ kind: 'Model', name: 'main' }, [unreadableDocument('not a mapping')])).toBe(true);
  });
});
