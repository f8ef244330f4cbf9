// gdn migrate as a real process: rewrites goondan.yaml in place, reports every change and what it left alone.
import { afterAll, expect, test } from 'bun:test';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, cliEnv, gdn, gdnJson, gdnWithin, mainTs, makeTempDir } from './helpers.ts';

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

interface MigrateJson {
  written: boolean;
  changes: { line: number; path: string; message: string }[];
  unconverted: { line: number; message: string }[];
}

/** A Windows-saved bundle: a BOM, CRLF endings, flow lists without padding, comments after values. */
const windowsBundle = [
  '\uFEFF# saved on Windows\r\n',
  'apiVersion: agents.example.io/v1alpha1\r\n',
  'kind: Tool\r\n',
  'metadata: {name: notes}\r\n',
  'spec:\r\n',
  '  runtime: node   # v1 only\r\n',
  '  entry: ./notes.ts\r\n',
  '  exports:\r\n',
  '    - name: notes.add   # the model saw notes.add\r\n',
  '      parameters: {type: object, properties: {name: {type: string}}, required: [name]}\r\n',
].join('');

test('gdn migrate changes only the parts it lists: BOM, CRLF, comments and flow lists stay byte for byte', async () => {
  const dir = await makeTempDir('gdn-migrate-bytes-');
  const file = join(dir, 'goondan.yaml');
  await writeFile(file, windowsBundle);
  const dry = await gdnJson<MigrateJson>(['migrate', '--bundle', dir, '--dry-run', '--json']);
  expect(dry.json.written).toBe(false);
  expect(await readFile(file, 'utf8')).toBe(windowsBundle);
  const run = await gdnJson<MigrateJson>(['migrate', '--bundle', dir, '--json']);
  expect(run.result.exitCode).toBe(0);
  expect(run.json.written).toBe(true);
  // The dry run listed exactly what the run then wrote.
  expect(dry.json.changes).toEqual(run.json.changes);
  expect(run.json.changes.map((change) => change.path)).toEqual(['apiVersion', 'spec.runtime', 'spec.exports.0.name']);
  expect(await readFile(file, 'utf8')).toBe(
    windowsBundle
      .replace('agents.example.io/v1alpha1', 'goondan.ai/v1')
      .replace('  runtime: node   # v1 only\r\n', '')
      .replace('- name: notes.add', '- name: add'),
  );
  // An LF file keeps its unpadded flow lists too (yaml's toString would write `[ name ]`).
  const lf = 'apiVersion: v1\nkind: Agent\nmetadata: {name: a}\nspec: {tools: [bash], required: [name]}\n';
  await writeFile(file, lf);
  expect((await gdn(['migrate', '--bundle', dir])).exitCode).toBe(0);
  expect(await readFile(file, 'utf8')).toBe(
    lf.replace('apiVersion: v1', 'apiVersion: goondan.ai/v1').replace('[bash]', '[Tool/bash]'),
  );
});

test('gdn migrate refuses a goondan.yaml that is not UTF-8 and writes nothing (exit 1)', async () => {
  const dir = await makeTempDir('gdn-migrate-utf8-');
  const file = join(dir, 'goondan.yaml');
  const bytes = Buffer.concat([
    Buffer.from('apiVersion: v1\nkind: Agent\nmetadata: { name: a }\n# caf'),
    Buffer.from([0xe9]),
    Buffer.from('\nspec: {}\n'),
  ]);
  await writeFile(file, bytes);
  const { result, json } = await gdnJson<MigrateJson>(['migrate', '--bundle', dir, '--json']);
  expect(result.exitCode).toBe(1);
  expect(json.written).toBe(false);
  expect(json.changes).toEqual([]);
  expect(json.unconverted).toEqual([
    expect.objectContaining({ line: 4, message: expect.stringContaining('byte 0xE9 at offset 54 is not UTF-8') }),
  ]);
  expect(Buffer.compare(await readFile(file), bytes)).toBe(0);
  const text = await gdn(['migrate', '--bundle', dir]);
  expect(text.exitCode).toBe(1);
  expect(text.stdout).toContain('goondan.yaml:4  E_MIGRATE_UNCONVERTED  byte 0xE9');
});

test('gdn migrate refuses a FIFO or an oversized goondan.yaml without reading it (no hang, exit 1)', async () => {
  const fifoDir = await makeTempDir('gdn-migrate-fifo-');
  expect(Bun.spawnSync(['mkfifo', join(fifoDir, 'goondan.yaml')]).exitCode).toBe(0);
  const fifo = await gdnWithin(['migrate', '--bundle', fifoDir]);
  expect(fifo.hung).toBe(false);
  expect(fifo.exitCode).toBe(1);
  expect(fifo.stderr).toContain('E_BUNDLE_NOT_FOUND');
  expect(fifo.stderr).toContain('not a regular file');
  const bigDir = await makeTempDir('gdn-migrate-big-');
  const big = `${'apiVersion: v1\nkind: Agent\nmetadata: { name: a }\nspec: { tools: [bash] }\n---\n'.repeat(30_000)}`;
  await writeFile(join(bigDir, 'goondan.yaml'), big);
  const refused = await gdnWithin(['migrate', '--bundle', bigDir]);
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toContain('E_YAML_LIMIT');
  expect(await readFile(join(bigDir, 'goondan.yaml'), 'utf8')).toBe(big);
});

test('a write that fails midway (file size limit) leaves goondan.yaml whole, never half-written', async () => {
  const dir = await makeTempDir('gdn-migrate-partial-');
  const file = join(dir, 'goondan.yaml');
  const agent = (index: number) =>
    `apiVersion: v1\nkind: Agent\nmetadata: { name: a${index} }\nspec: { tools: [bash, file-system] }\n`;
  const original = Array.from({ length: 40 }, (_, index) => agent(index)).join('---\n');
  await writeFile(file, original);
  // ulimit -f counts 1024-byte blocks: the rewritten file (longer than the original) cannot be written past 2 KB.
  const shell = Bun.spawn(
    ['sh', '-c', `ulimit -f 2 && exec "$0" "$@"`, process.execPath, mainTs, 'migrate', '--bundle', dir],
    {
      env: cliEnv(),
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  const stderr = await new Response(shell.stderr).text();
  await shell.exited;
  expect(shell.exitCode).toBe(1);
  expect(stderr).toContain("E_PATH_ACCESS Cannot write '");
  expect(stderr).toContain('(EFBIG)');
  expect(await readFile(file, 'utf8')).toBe(original);
  expect((await readdir(dir)).filter((name) => name !== 'goondan.yaml')).toEqual([]);
});
