import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadBundle } from '@goondan/core';
import { assistantBundleDir } from '../src/index.ts';

interface Document {
  kind: string;
  metadata: { name: string };
  spec: { entry: string; exports?: { name: string }[] };
}

const documents = Bun.YAML.parse(await Bun.file(join(assistantBundleDir, 'goondan.yaml')).text()) as Document[];

describe('packages/assistant/goondan.yaml', () => {
  test('loads as a library with no problems: every entry exists and has a handler for every export', async () => {
    const { problems, handlers } = await loadBundle({ dir: assistantBundleDir });
    expect(problems).toEqual([]);
    for (const document of documents.filter((each) => each.kind === 'Tool')) {
      const names = Object.keys(handlers.get(`Tool/${document.metadata.name}`) ?? {});
      expect(names.sort()).toEqual((document.spec.exports ?? []).map((exported) => exported.name).sort());
    }
  });

  test('every tool module under tools/ is declared by a Tool document', () => {
    const entries = new Set(
      documents.filter((each) => each.kind === 'Tool').map((each) => resolve(assistantBundleDir, each.spec.entry)),
    );
    const modules = readdirSync(join(assistantBundleDir, 'tools')).map((dir) =>
      resolve(assistantBundleDir, 'tools', dir, 'index.ts'),
    );
    expect(modules.filter((module) => !entries.has(module))).toEqual([]);
  });
});
