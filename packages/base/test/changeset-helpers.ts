// What the changeset tests share: a bundle in a fresh git repository (real git, no global configuration) and the
// swarm-bundle tool calls an agent makes on it.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { JsonObject } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { handlers } from '../tools/swarm-bundle/index.ts';

// The identity of the test's own commits is given on the command line.
const identity = ['-c', 'user.name=Test Person', '-c', 'user.email=person@example.invalid'];

export function bundleYaml(system: string, reply = 'v1'): string {
  return [
    'apiVersion: goondan.ai/v1',
    'kind: Agent',
    'metadata: { name: builder }',
    'spec:',
    '  modelConfig: { modelRef: Model/main }',
    `  prompt: { system: ${system} }`,
    '  tools: [Tool/file-system]',
    '---',
    'apiVersion: goondan.ai/v1',
    'kind: Model',
    'metadata: { name: main }',
    'spec:',
    '  provider: scripted',
    '  model: fixture',
    `  script: [{ text: ${reply} }]`,
    '',
  ].join('\n');
}

export async function runGit(cwd: string, ...args: string[]): Promise<string> {
  const proc = Bun.spawn(['git', ...identity, ...args], { cwd, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`git ${args.join(' ')}: ${err}`);
  return out.trim();
}

const dirs: string[] = [];

/** Removes every bundle made since the last call: each test file calls it in afterEach. */
export async function removeBundles(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A fresh directory (realpath'd), removed by removeBundles. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/** A bundle committed on branch main of a fresh repository, and the workdir of its agent. */
export async function gitBundle(options: { git?: boolean } = {}) {
  const dir = await tempDir('gdn-changesets-');
  await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build.'));
  await writeFile(join(dir, 'notes.md'), 'notes\n');
  await writeFile(join(dir, '.gitignore'), '.goondan/\n');
  if (options.git !== false) {
    await runGit(dir, 'init', '-q', '-b', 'main');
    await runGit(dir, 'add', '-A');
    await runGit(dir, 'commit', '-q', '-m', 'bundle');
  }
  const workdir = join(dir, '.goondan', 'workspaces', 'builder', 'default');
  await mkdir(workdir, { recursive: true });
  return { dir, workdir };
}

export function contextFor(workdir: string, config: JsonObject = {}, agentName = 'builder') {
  return createTestToolContext({ workdir, config: { allowedPaths: ['**'], ...config }, agentName });
}

export type Output = Record<string, unknown> & { status: string };

export async function openAndEdit(
  workdir: string,
  name: string,
  edit: (text: string) => string,
  file = 'goondan.yaml',
) {
  const ctx = contextFor(workdir);
  const opened = (await handlers.open_changeset(ctx, { name })) as { workdir: string; base: string };
  const path = join(workdir, opened.workdir, file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, edit(await readFile(path, 'utf8').catch(() => '')));
  return opened;
}

export function commit(workdir: string, changeset: string, config: JsonObject = {}): Promise<Output> {
  return handlers.commit_changeset(contextFor(workdir, config), {
    changeset,
    message: `change ${changeset}`,
  }) as Promise<Output>;
}
