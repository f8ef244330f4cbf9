import { afterAll, describe, expect, test } from 'bun:test';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, type GdnResult, gdnWithin, hangDeadlineMs, makeTempDir, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

/** A bundle whose Agent uses Tool `t` (export `go`) and Extension `x`, whose module is `extension`. */
async function bundleWith(extension: string): Promise<string> {
  const dir = await makeTempDir('gdn-hostile-ext-');
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 't.ts'), 'export const handlers = { go: () => ({ ok: 1 }) };\n');
  await writeFile(join(dir, 'src', 'x.ts'), extension);
  const documents = [
    'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata:\n  name: t\nspec:\n  entry: ./src/t.ts\n  exports:\n    - name: go\n      description: Goes.\n      parameters: { type: object }',
    'apiVersion: goondan.ai/v1\nkind: Extension\nmetadata:\n  name: x\nspec:\n  entry: ./src/x.ts',
    'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata:\n  name: a\nspec:\n  modelConfig:\n    modelRef: Model/main\n  tools: [Tool/t]\n  extensions: [Extension/x]',
    scriptedModel([{ toolCalls: [{ name: 't__go', args: {} }] }, { text: 'done' }]).trimEnd(),
  ];
  await writeFile(join(dir, 'goondan.yaml'), `${documents.join('\n---\n')}\n`);
  return dir;
}

function expectExited(result: GdnResult & { hung: boolean }): void {
  if (result.hung) throw new Error(`gdn did not exit within ${hangDeadlineMs} ms:\n${result.stdout}\n${result.stderr}`);
  expect(result.signalCode).toBeNull();
  expect(result.stderr).not.toContain('unexpected failure');
}

describe('an extension that never finishes', () => {
  test('an onClose listener that never settles: the result is printed, the command ends, the extension is named', async () => {
    const dir = await bundleWith('export function register(api) { api.onClose(() => new Promise(() => {})); }\n');
    const result = await gdnWithin(['tools', 'call', '--bundle', dir, 't__go', '{}']);
    expectExited(result);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ status: 'ok', output: { ok: 1 } });
    expect(result.stderr).toContain("Extension 'x': its onClose listener did not finish within 5 s");
  });

  test('a register() that never resolves is E_EXTENSION_LOAD at the register timeout, not a hang', async () => {
    const dir = await bundleWith('export function register() { return new Promise(() => {}); }\n');
    const result = await gdnWithin(['run', '--bundle', dir, '--input', 'hi'], {
      GOONDAN_EXTENSION_REGISTER_TIMEOUT_MS: '3000',
    });
    expectExited(result);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('E_EXTENSION_LOAD');
    expect(result.stderr).toContain("Extension 'x' failed to load: register(api) did not finish within 3 s");
  });

  test('a register() that takes longer than 10 s is reported while it runs, and the agent starts', async () => {
    const dir = await bundleWith(
      'export async function register() { await new Promise((done) => setTimeout(done, 11_000)); }\n',
    );
    const result = await gdnWithin(['run', '--bundle', dir, '--input', 'hi']);
    expectExited(result);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("Extension 'x': register(api) has not finished after 10 s; waiting up to 120 s.");
    expect(result.stdout).toContain('done');
  }, 60_000);
});

describe('what a toolCall middleware answers or throws', () => {
  test('an output holding a BigInt and a cycle is printed as JSON, and the turn goes on', async () => {
    const dir = await bundleWith(
      [
        'export function register(api) {',
        "  api.pipeline.register('toolCall', async () => {",
        '    const loop = { big: 10n }; loop.self = loop;',
        "    return { status: 'ok', output: loop };",
        '  });',
        '}',
      ].join('\n'),
    );
    const call = await gdnWithin(['tools', 'call', '--bundle', dir, 't__go', '{}']);
    expectExited(call);
    expect(call.exitCode).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual({ status: 'ok', output: { big: '10', self: '[Circular]' } });
    expect(call.stderr).not.toContain('audit write failed');
    const run = await gdnWithin(['run', '--bundle', dir, '--input', 'hi']);
    expectExited(run);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('done');
    const audit = await gdnWithin(['audit', '--bundle', dir, '--json']);
    expect(audit.exitCode).toBe(0);
    const rows = JSON.parse(audit.stdout) as { toolName: string; status: string }[];
    expect(rows.filter((row) => row.toolName === 't__go' && row.status === 'ok')).toHaveLength(2);
  });

  test('throw null is an E_TOOL_MIDDLEWARE result naming the extension', async () => {
    const dir = await bundleWith(
      "export function register(api) { api.pipeline.register('toolCall', async () => { throw null; }); }\n",
    );
    const result = await gdnWithin(['tools', 'call', '--bundle', dir, 't__go', '{}']);
    expectExited(result);
    expect(result.exitCode).toBe(1);
    const printed = JSON.parse(result.stdout) as { status: string; error: { code: string; message: string } };
    expect(printed.error.code).toBe('E_TOOL_MIDDLEWARE');
    expect(printed.error.message).toBe("Extension 'x': threw null");
  });
});
