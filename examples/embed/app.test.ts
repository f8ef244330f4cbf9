import { afterAll, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const app = join(import.meta.dir, 'app.ts');
const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

async function runApp(args: string[]) {
  const state = await mkdtemp(join(tmpdir(), 'goondan-embed-'));
  made.push(state);
  const proc = Bun.spawn([process.execPath, app, ...args, '--state', state], { stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { exitCode: proc.exitCode, stdout, stderr, state };
}

test('the embedding example opens its bundle, streams the turn, approves the call and prints the reply', async () => {
  const result = await runApp(['Note: milk, bread']);
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toContain('  call notes__save {"title":"groceries","text":"milk, bread"}');
  expect(result.stdout).toContain('  approval notes__save (sensitive: ask): approve');
  expect(result.stdout).toContain('  notes__save → ok');
  expect(result.stdout).toContain("reply (completed, 2 steps): Saved your note 'groceries'.");
  const note = join(result.state, 'workspaces', 'assistant', 'embed-example', 'groceries.txt');
  expect(await readFile(note, 'utf8')).toBe('milk, bread\n');
});

test('a denied approval reaches the model as an error and the tool never runs', async () => {
  const result = await runApp(['Note: milk, bread', '--deny']);
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toContain('  approval notes__save (sensitive: ask): deny');
  expect(result.stdout).toContain('  notes__save → error');
  expect(await Bun.file(join(result.state, 'workspaces', 'assistant', 'embed-example', 'groceries.txt')).exists()).toBe(
    false,
  );
});
