import { afterAll, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, cliEnv, gdn, gdnJson, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

/** A bundle whose Tool `player` needs a command no machine has, beside one that needs nothing. */
async function bundle(): Promise<string> {
  const dir = await makeTempDir('gdn-availability-');
  await writeFile(join(dir, 'tools.ts'), 'export const handlers = { next: () => "next", hello: () => "hi" };\n');
  await writeFile(
    join(dir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: player }
spec:
  entry: ./tools.ts
  requires: { commands: [gdn-test-no-such-player], install: apt-get install gdn-test-player }
  exports: [{ name: next }]
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: greet }
spec:
  entry: ./tools.ts
  exports: [{ name: hello }]
`,
  );
  return dir;
}

describe('gdn tools list / call tell the truth about tools this machine cannot offer (spec.requires)', () => {
  test('--json lists them with the reason; --all explains them; a call says E_TOOL_UNAVAILABLE', async () => {
    const dir = await bundle();
    const [listed, all, called] = await Promise.all([
      gdnJson<{ tools: { name: string }[]; unavailable: unknown[] }>(['tools', 'list', '--json'], { cwd: dir }),
      gdn(['tools', 'list', '--all'], { cwd: dir, env: cliEnv() }),
      gdnJson<{ status: string; error: { code: string; message: string } }>(['tools', 'call', 'player__next'], {
        cwd: dir,
      }),
    ]);
    expect(listed.json.tools.map((tool) => tool.name)).toEqual(['greet__hello']);
    expect(listed.json.unavailable).toEqual([
      {
        name: 'player__next',
        resource: 'player',
        reason: 'needs the command gdn-test-no-such-player on PATH (not found)',
        install: 'apt-get install gdn-test-player',
        declared: true,
      },
    ]);
    // --all covers the libraries' Tools too (their backends may be missing here as well).
    expect(all.stdout).toMatch(/\nNot offered on this machine \(\d+ tools?\):\n/);
    expect(all.stdout).toContain(
      'player__next\n  needs the command gdn-test-no-such-player on PATH (not found)\n  install: apt-get install gdn-test-player',
    );
    expect(called.result.exitCode).toBe(1);
    expect(called.json.error.code).toBe('E_TOOL_UNAVAILABLE');
    expect(called.json.error.message).toContain('To install: apt-get install gdn-test-player.');
  });
});
