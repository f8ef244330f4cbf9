import { afterAll, describe, expect, test } from 'bun:test';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, gdnWithin, hangDeadlineMs, makeTempDir, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

/** A bundle whose Agent uses Tool `t` (export `go`, timeoutMs 1000) and Extension `x`, whose module is `extension`. */
async function bundleWith(extension: string): Promise<string> {
  const dir = await makeTempDir('gdn-ext-misuse-');
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 't.ts'), 'export const handlers = { go: () => ({ ok: 1 }) };\n');
  await writeFile(join(dir, 'src', 'x.ts'), extension);
  const documents = [
    'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata:\n  name: t\nspec:\n  entry: ./src/t.ts\n  timeoutMs: 1000\n  exports:\n    - name: go\n      description: Goes.\n      parameters: { type: object }',
    'apiVersion: goondan.ai/v1\nkind: Extension\nmetadata:\n  name: x\nspec:\n  entry: ./src/x.ts',
    'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata:\n  name: a\nspec:\n  modelConfig:\n    modelRef: Model/main\n  tools: [Tool/t]\n  extensions: [Extension/x]',
    scriptedModel([{ toolCalls: [{ name: 't__go', args: {} }] }, { text: 'done' }]).trimEnd(),
  ];
  await writeFile(join(dir, 'goondan.yaml'), `${documents.join('\n---\n')}\n`);
  return dir;
}

describe('gdn with an extension whose toolCall middleware never answers', () => {
  const hanging = "export function register(api) { api.pipeline.register('toolCall', () => new Promise(() => {})); }\n";

  test('tools call: E_TOOL_MIDDLEWARE at the tool timeout, the command ends', async () => {
    // It used to hang the command for ever: only the handler had a timeout.
    const dir = await bundleWith(hanging);
    const result = await gdnWithin(['tools', 'call', '--bundle', dir, 't__go', '{}']);
    if (result.hung) throw new Error(`gdn did not exit within ${hangDeadlineMs} ms:\n${result.stderr}`);
    expect(result.exitCode).toBe(1);
    const printed = JSON.parse(result.stdout) as { status: string; error: { code: string; message: string } };
    expect(printed.error.code).toBe('E_TOOL_MIDDLEWARE');
    expect(printed.error.message).toStartWith(
      "Tool 't__go': its toolCall middleware did not answer within 1000 ms (the tool's timeoutMs)",
    );
  });

  test('run: the turn goes on past the call and ends with the model text', async () => {
    const dir = await bundleWith(hanging);
    const result = await gdnWithin(['run', '--bundle', dir, '--input', 'hi']);
    if (result.hung) throw new Error(`gdn did not exit within ${hangDeadlineMs} ms:\n${result.stderr}`);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('done');
    const audit = await gdnWithin(['audit', '--bundle', dir, '--json']);
    expect(audit.exitCode).toBe(0);
    const rows = JSON.parse(audit.stdout) as { toolName: string; errorCode: string | null }[];
    expect(rows.filter((row) => row.toolName === 't__go').map((row) => row.errorCode)).toEqual(['E_TOOL_MIDDLEWARE']);
  });
});
