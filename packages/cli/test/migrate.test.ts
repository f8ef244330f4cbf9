// gdn migrate as a real process: rewrites goondan.yaml in place, reports every change and what it left alone.
import { afterAll, expect, test } from 'bun:test';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, gdnJson, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

test('gdn migrate --json rewrites the file in place and lists changes and unconverted parts (exit 1)', async () => {
  const dir = await makeTempDir('gdn-migrate-');
  await writeFile(
    join(dir, 'goondan.yaml'),
    `# kept
apiVersion: agents.example.io/v1alpha1
kind: Tool
metadata: { name: notes }
spec:
  runtime: node
  entry: ./notes.ts
  auth: { oauthAppRef: { kind: OAuthApp, name: google } }
  exports:
    - name: notes.add
`,
  );
  const { result, json } = await gdnJson<{
    written: boolean;
    changes: { message: string }[];
    unconverted: { path: string }[];
  }>(['migrate', '--bundle', dir, '--json']);
  expect(result.exitCode).toBe(1);
  expect(json.written).toBe(true);
  expect(json.changes.map((change) => change.message.split(' ')[0])).toEqual(['apiVersion', 'spec.runtime', 'export']);
  expect(json.unconverted.map((note) => note.path)).toEqual(['spec.auth']);
  const text = await readFile(join(dir, 'goondan.yaml'), 'utf8');
  expect(text).toStartWith('# kept\napiVersion: goondan.ai/v1\n');
  expect(text).toContain('- name: add');
});
