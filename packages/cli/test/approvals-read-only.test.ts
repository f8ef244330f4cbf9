// State that can be read but not written (another user's `.goondan/`): `gdn approvals list` reads it like `gdn audit`
// and `gdn trace` do; answering an approval there is a structured error, not a stack trace.
import { afterAll, expect, test } from 'bun:test';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { agentBundle, cleanupTempDirs, cliEnv, gdn, mainTs, makeTempDir, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

/** Runs `gdn ARGS` as a user who may read the bundle but not write it: nobody when we are root, else ourselves. */
async function asReader(args: string[], home: string) {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot
    ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, mainTs, ...args]
    : [process.execPath, mainTs, ...args];
  const proc = Bun.spawn(command, { env: cliEnv({ HOME: home }), stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { exitCode: proc.exitCode, stdout, stderr };
}

async function readOnly(path: string, asRoot: boolean): Promise<void> {
  // As root, others get read and traverse only; as another user, the owner loses write too.
  await Bun.$`chmod -R ${asRoot ? 'a+rX,go-w' : 'a-w'} ${path}`.quiet();
}

test('gdn approvals list and audit read state they may not write; approve there answers without a stack trace', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'Done.' }]));
  const ran = await gdn(['run', '--bundle', bundle, '--input', 'hello']);
  expect(ran.exitCode).toBe(0);
  const asRoot = process.getuid?.() === 0;
  const home = await makeTempDir('gdn-reader-home-');
  await chmod(home, 0o777);
  // The bundle's folders down from the temp dir are made readable to the other user.
  for (let dir = bundle; dir !== dirname(dir) && dir.length > 1; dir = dirname(dir)) {
    if (dir === '/tmp' || dir === dirname(home)) break;
    await chmod(dir, 0o755);
  }
  await readOnly(join(bundle, '.goondan'), asRoot);
  await mkdir(join(home, '.cache'), { recursive: true });
  await chmod(join(home, '.cache'), 0o777);

  const listed = await asReader(['approvals', 'list', '--all', '--bundle', bundle], home);
  expect(listed.stderr).not.toContain('E_STORE_OPEN');
  expect(listed.stdout).toContain('No approvals yet.');
  expect(listed.exitCode).toBe(0);

  const audit = await asReader(['audit', '--bundle', bundle], home);
  expect(audit.exitCode).toBe(0);

  const answered = await asReader(['approvals', 'approve', 'appr_missing', '--bundle', bundle], home);
  expect(answered.exitCode).not.toBe(0);
  expect(`${answered.stdout}${answered.stderr}`).not.toMatch(/\n\s+at /);
  await Bun.$`chmod -R u+w ${join(bundle, '.goondan')}`.quiet();
});
