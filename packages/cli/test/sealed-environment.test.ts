import { afterAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import { agentBundle, cleanupTempDirs, cliEnv, editBundle, repoRoot, serverModel } from './helpers.ts';

afterAll(cleanupTempDirs);

const installed = join(repoRoot, 'node_modules', '.bin', 'gdn');
/** Fake secrets, set only in the environment of the gdn process each test starts. */
const plantedKey = 'sk-planted-model-key-4f1c9a2e7b';
const plantedToken = 'planted-token-value-93d0e';

/** Dumps the environment block of the command and of every ancestor, up to pid 1, into walk.txt. */
const walkAncestors = [
  'p=$$',
  'while [ "$p" -gt 1 ]; do echo "=== $p"; tr "\\0" "\\n" < /proc/$p/environ; p=$(sed -n "s/^PPid:[[:space:]]*//p" /proc/$p/status); done > walk.txt',
  'cat walk.txt',
].join('; ');

/** Every file under `dir` that contains `text` (read as bytes: SQLite files too). */
function filesContaining(dir: string, text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    if (statSync(path).isFile() && readFileSync(path, 'latin1').includes(text)) found.push(entry);
  }
  return found;
}

/** The agent fixture with a Model that needs OPENAI_API_KEY, restricted tools allowed, optionally as a Swarm. */
async function bundleFor(baseURL: string, swarm: boolean): Promise<string> {
  const model = serverModel(baseURL, { settings: ['apiKey: { valueFrom: { env: OPENAI_API_KEY } }'] });
  const bundle = await agentBundle(model);
  const swarmDocument =
    'apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata:\n  name: solo\nspec:\n  entryAgent: Agent/helper\n  agents: [Agent/helper]\n---\n';
  await editBundle(
    bundle,
    (text) =>
      (swarm ? swarmDocument : '') +
      text.replace('  tools:\n    - Tool/calc', '  permissions:\n    restricted: allow\n  tools:\n    - Tool/calc'),
  );
  return bundle;
}

describe('secrets in the environment', () => {
  for (const swarm of [false, true]) {
    const where = swarm ? 'in an agent process of a Swarm' : 'in gdn run';
    test(`bash cannot read the model key from any ancestor's /proc/PID/environ (${where})`, async () => {
      const server = await startOpenAICompatibleServer({
        responses: [
          { toolCalls: [{ name: 'bash__exec', arguments: JSON.stringify({ command: walkAncestors }) }] },
          { text: 'done' },
        ],
      });
      try {
        const bundle = await bundleFor(server.url, swarm);
        const proc = Bun.spawn([installed, 'run', '--bundle', bundle, '--input', 'walk'], {
          cwd: bundle,
          env: cliEnv({ OPENAI_API_KEY: plantedKey, GOONDAN_TEST_API_TOKEN: plantedToken }),
          stdout: 'pipe',
          stderr: 'pipe',
        });
        const [stdout, stderr] = await Promise.all([
          new Response(proc.stdout).text(),
          new Response(proc.stderr).text(),
        ]);
        await proc.exited;
        expect({ exitCode: proc.exitCode, stdout, stderr }).toMatchObject({ exitCode: 0, stdout: 'done\n' });
        // The model was called with the key (the Model has no other way to get it)...
        expect(server.requests.filter((request) => request.path.endsWith('/chat/completions')).length).toBe(2);
        expect(server.requests.every((request) => request.hasAuthorization)).toBe(true);
        // ...and the tool read the blocks of the runtime processes above it, without finding it.
        const walk = readFileSync(join(bundle, '.goondan', 'workspaces', 'helper', 'default', 'walk.txt'), 'utf8');
        expect(walk).toContain(`=== ${proc.pid}\n`);
        expect(walk).toContain('PATH=');
        for (const secret of [plantedKey, plantedToken]) {
          expect(walk.includes(secret)).toBe(false); // not toContain: a failure would print the whole walk
          expect(filesContaining(bundle, secret)).toEqual([]);
          expect(JSON.stringify(server.requests)).not.toContain(secret);
          expect(stdout + stderr).not.toContain(secret);
        }
      } finally {
        await server.close();
      }
    });
  }

  test('a GOONDAN_SEALED_ENV_FD inherited from elsewhere is ignored, not taken for the hand-over', async () => {
    // A gdn run by a tool of another gdn may inherit the variable; fd 3 is then one of Bun's own.
    const proc = Bun.spawn([installed, 'tools', 'list', '--bundle', join(repoRoot, 'examples', 'hello')], {
      env: cliEnv({ OPENAI_API_KEY: plantedKey, GOONDAN_SEALED_ENV_FD: '3' }),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    expect({ exitCode: proc.exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(stdout).toContain('greet__hello');
  });

  test('a hand-over the file-size limit cuts short is not used: a warning, and the command still runs', async () => {
    // `ulimit -f 2` lets the first 1 KiB of the environment into the memfd and refuses the rest.
    const proc = Bun.spawn(['bash', '-c', `ulimit -f 2; exec ${installed} --version`], {
      env: cliEnv({ OPENAI_API_KEY: plantedKey, GOONDAN_TEST_PADDING: 'p'.repeat(4096) }),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect(await proc.exited).toBe(0);
    expect(stdout).toMatch(/^gdn \d/);
    expect(stderr).toContain('could not keep secrets out of the process environment');
    expect(stderr).not.toContain('JSON Parse error');
    expect(stderr).not.toContain(plantedKey);
  });
});
