// Colours on a real terminal: gdn runs under `script`, which gives it a pseudo-terminal, so Bun's own console
// would paint as it does for a person (every console.error line red) unless the CLI writes plain text itself.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { cleanupTempDirs, cliEnv, gdn, mainTs, makeTempDir } from './helpers.ts';

const script = Bun.which('script');
const csi = '\u001b[';

/** `gdn ARGS` on a pseudo-terminal with the given colour variables (and none of the suite's NO_COLOR). */
async function onTerminal(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<string> {
  const { NO_COLOR: _, FORCE_COLOR: __, ...env } = cliEnv();
  const command = [process.execPath, mainTs, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const proc = Bun.spawn([script!, '-qec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...env, TERM: 'xterm-256color', ...options.env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const output = await new Response(proc.stdout).text();
  await proc.exited;
  return output;
}

let bot = '';
beforeAll(async () => {
  if (!script) return;
  bot = join(await makeTempDir('gdn-colours-'), 'bot');
  expect((await gdn(['init', bot])).exitCode).toBe(0);
});
afterAll(cleanupTempDirs);

describe.skipIf(!script)('colours on a terminal', () => {
  test("only what gdn paints is coloured: a tool call's ok is green, the line is not Bun's red", async () => {
    const output = await onTerminal(['run', '--input', 'Please greet Ada'], { cwd: bot, env: {} });
    expect(output).toContain('HELLO, ADA!');
    expect(output).toContain(`greet__hello ${csi}32mok${csi}39m`);
    expect(output).not.toContain(`${csi}31m`);
    const failed = await onTerminal(['migrate', '--bundle', join(bot, 'missing')], { cwd: bot, env: {} });
    expect(failed).toStartWith(`${csi}31mE_BUNDLE_NOT_FOUND${csi}39m The directory `);
    expect(failed).toContain('\r\n  suggestion: Check the path');
  });

  test.each([
    ['TERM=dumb', { TERM: 'dumb' }],
    ['FORCE_COLOR=0', { FORCE_COLOR: '0' }],
    ['FORCE_COLOR=false', { FORCE_COLOR: 'false' }],
    ['NO_COLOR=1', { NO_COLOR: '1' }],
  ])('%s: no colour at all, successes and failures alike', async (_name, env) => {
    const output = await onTerminal(['run', '--input', 'Please greet Ada'], { cwd: bot, env });
    expect(output).toContain('greet__hello ok');
    expect(output).not.toContain(csi);
    const failed = await onTerminal(['migrate', '--bundle', join(bot, 'missing')], { cwd: bot, env });
    expect(failed).toStartWith('E_BUNDLE_NOT_FOUND The directory ');
    expect(failed).not.toContain(csi);
  });
});
