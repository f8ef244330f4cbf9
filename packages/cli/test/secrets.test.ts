import { afterAll, describe, expect, test } from 'bun:test';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import { agentBundle, cleanupTempDirs, cliEnv, type GdnResult, gdn, scriptedModel, serverModel } from './helpers.ts';

afterAll(cleanupTempDirs);

/** A key of no recognisable shape: only knowing the value can catch it. */
const plantedKey = 'GdnPlanted7Qx2Lm9Vb4Np8RsT';

/** Every file under `dir`, recursively (databases, WAL files, workspaces). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Where `needle` turns up: in the output of each command, or in each file under the bundle. */
async function leaks(needle: string, results: Record<string, GdnResult>, bundleDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const [name, result] of Object.entries(results)) {
    if (result.stdout.includes(needle)) found.push(`${name} stdout`);
    if (result.stderr.includes(needle)) found.push(`${name} stderr`);
  }
  for (const file of await filesUnder(bundleDir)) {
    if ((await readFile(file)).includes(needle)) found.push(file.slice(bundleDir.length));
  }
  return found;
}

describe('secrets in output', () => {
  test('a provider error echoing the API key leaves no trace of it in output, stores or files', async () => {
    const rejected = {
      status: 401,
      errorBody: {
        error: {
          message: `Incorrect API key provided: ${plantedKey}. You can find your API key at https://platform.example/keys.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    };
    const server = await startOpenAICompatibleServer({ responses: [rejected, rejected] });
    try {
      const bundle = await agentBundle(
        serverModel(server.url, { settings: ['apiKey: { valueFrom: { env: LLM_ACCESS } }'] }),
      );
      const env = cliEnv({ LLM_ACCESS: plantedKey });
      const flags = ['--bundle', bundle];
      const runJson = await gdn(['run', ...flags, '--input', 'hi', '--json'], { env });
      const runText = await gdn(['run', ...flags, '--input', 'hi again'], { env });
      const traceJson = await gdn(['trace', ...flags, '--json'], { env });
      const traceOtlp = await gdn(['trace', ...flags, '--otlp'], { env });
      const traceTree = await gdn(['trace', ...flags], { env });

      // The runs did reach the server and fail on its answer, so the test exercised the error path.
      expect(server.requests.filter((request) => request.hasAuthorization)).toHaveLength(2);
      expect(runJson.exitCode).toBe(1);
      const turn = JSON.parse(runJson.stdout) as { status: string; error: { code: string; message: string } };
      expect(turn.status).toBe('error');
      expect(turn.error.message).toContain('Incorrect API key provided: [REDACTED].');
      expect(runText.stderr).toContain('Incorrect API key provided: [REDACTED].');
      expect(traceJson.stdout).toContain('Incorrect API key provided: [REDACTED].');
      expect(traceOtlp.exitCode).toBe(0);

      const results = { runJson, runText, traceJson, traceOtlp, traceTree };
      expect(await leaks(plantedKey, results, bundle)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test('tool lines on stderr show no passwords, bearer tokens or URL credentials from the arguments', async () => {
    const args = {
      password: 'hunter2',
      reason: 'curl -H "Authorization: Bearer xyzTok3nValue" https://me:s3cretPass@example.com/',
    };
    const bundle = await agentBundle(
      scriptedModel([{ toolCalls: [{ name: 'calc__boom', args }] }, { text: 'It failed.' }]),
    );
    const result = await gdn(['run', '--bundle', bundle, '--input', 'break it']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('⚙ calc__boom {"password":"[REDACTED]"');
    for (const secret of ['hunter2', 'xyzTok3nValue', 's3cretPass']) expect(result.stderr).not.toContain(secret);
  });
});
