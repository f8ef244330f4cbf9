import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseBundleDir } from '@goondan/base';
import { createTestToolContext } from '@goondan/core/testing';
import { assistantBundleDir } from '../src/assistant-bundle-dir.ts';

// Real git, no global configuration: the identity of the test's own commits is given on the command line.
const identity = ['-c', 'user.name=Test Person', '-c', 'user.email=person@example.invalid'];
const persona = ['You help.', 'Be brief.', 'Say hi.', 'Say hi.', 'Say hi.', 'Say hi.', 'Say hi.', 'Say hi.'].join('\n');

function bundleYaml(tools: string): string {
  return [
    '# The assistant bundle (this comment must survive edits)',
    'apiVersion: goondan.ai/v1',
    'kind: Agent',
    'metadata: { name: helper }',
    'spec:',
    '  modelConfig: { modelRef: Model/main } # the model',
    '  prompt:',
    '    system: |',
    ...persona.split('\n').map((line) => `      ${line}`),
    `  tools: [${tools}]`,
    '---',
    'apiVersion: goondan.ai/v1',
    'kind: Model',
    'metadata: { name: main }',
    'spec: { provider: scripted, model: fixture, script: [{ text: hi }] }',
    '',
  ].join('\n');
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const proc = Bun.spawn(['git', ...identity, ...args], { cwd, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`git ${args.join(' ')}: ${err}`);
  return out.trim();
}

const dirs: string[] = [];

/** Removes every bundle made so far (call it from `afterEach`). */
export async function removeGitBundles(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * Agent `helper` (an eight-line persona, a commented model line) using `tools`, committed on branch main of a
 * fresh repository; its context runs with both libraries.
 */
export async function gitBundle(options: { prefix: string; tools: string }) {
  const dir = await realpath(await mkdtemp(join(tmpdir(), options.prefix)));
  dirs.push(dir);
  await writeFile(join(dir, 'goondan.yaml'), bundleYaml(options.tools));
  await writeFile(join(dir, '.gitignore'), '.goondan/\n');
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'bundle');
  const workdir = join(dir, '.goondan', 'workspaces', 'helper', 'default');
  await mkdir(workdir, { recursive: true });
  const ctx = createTestToolContext({
    workdir,
    agentName: 'helper',
    bundle: { rootDir: dir, libraries: [baseBundleDir, assistantBundleDir] },
  });
  return { dir, ctx, yaml: () => readFile(join(dir, 'goondan.yaml'), 'utf8') };
}
