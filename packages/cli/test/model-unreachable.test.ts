import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import { agentBundle, cleanupTempDirs, editBundle, gdn, gdnJson, gdnWithin, serverModel } from './helpers.ts';

afterAll(cleanupTempDirs);

/** A port nothing listens on: bound on 127.0.0.1, then closed. */
function closedPort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** One retry keeps the test short; the waits between attempts are the AI SDK's (2 s). */
function downModel(baseURL: string): string {
  return serverModel(baseURL, { model: 'llama3', settings: ['params: { maxRetries: 1 }'] });
}

describe('a model server that is down', () => {
  test('gdn run names the Model, its URL and declaration, suggests what to check, and shows each retry', async () => {
    const baseURL = `http://127.0.0.1:${closedPort()}/v1`;
    const bundle = await agentBundle(downModel(baseURL));
    const result = await gdn(['run', '--bundle', bundle, '--input', 'hi']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/model main: attempt 1 of 2 failed .*; retrying in 2\.0s/);
    expect(result.stderr).toContain(
      `[error] E_MODEL_CALL_FAILED: Model 'main' (provider openai-compatible, ${baseURL}, declared at goondan.yaml:`,
    );
    expect(result.stderr).toContain('could not reach its server');
    expect(result.stderr).toContain(`suggestion: Is the model server running at ${baseURL}? Check spec.baseURL`);
    expect(result.stderr).toMatch(/help: https:\/\/\S+\/docs\/errors\/E_MODEL_CALL_FAILED\.md/);
  });

  test('in a Swarm the agent runs in its own process, and its retries are shown the same way', async () => {
    const baseURL = `http://127.0.0.1:${closedPort()}/v1`;
    const bundle = await agentBundle(downModel(baseURL));
    const swarm =
      'apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata:\n  name: solo\nspec:\n  entryAgent: Agent/helper\n  agents: [Agent/helper]\n---\n';
    await editBundle(bundle, (text) => swarm + text);
    const result = await gdn(['run', '--bundle', bundle, '--input', 'hi']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/model main: attempt 1 of 2 failed .*; retrying in 2\.0s/);
    expect(result.stderr).toContain('[error] E_MODEL_CALL_FAILED');
  });

  test('gdn run --json carries the same error and suggestion, and prints no retry lines', async () => {
    const baseURL = `http://127.0.0.1:${closedPort()}/v1`;
    const bundle = await agentBundle(downModel(baseURL));
    const { result, json } = await gdnJson<{
      status: string;
      error: { code: string; message: string; suggestion: string };
    }>(['run', '--bundle', bundle, '--input', 'hi', '--json']);
    expect(result.exitCode).toBe(1);
    expect(json.status).toBe('error');
    expect(json.error.code).toBe('E_MODEL_CALL_FAILED');
    expect(json.error.message).toContain(`Model 'main'`);
    expect(json.error.suggestion).toContain('Is the model server running');
    expect(result.stderr).not.toContain('retrying');
  });
});

describe('a model server that stops answering', () => {
  test('gdn run gives the call up after idleTimeoutMs (E_MODEL_CALL_FAILED), keeps nothing of it, and the next turn runs', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [{ text: 'Hello there, friend', stallAfterChunks: 2 }, { text: 'Back.' }],
    });
    try {
      const settings = ['apiKey: { value: test-key }', 'params: { maxRetries: 0, idleTimeoutMs: 1000 }'];
      const bundle = await agentBundle(serverModel(server.url, { settings }));
      const stalled = await gdnWithin(['run', '--bundle', bundle, '--input', 'first']);
      expect(stalled.hung).toBe(false);
      expect(stalled.exitCode).toBe(1);
      expect(stalled.stderr).toContain('[error] E_MODEL_CALL_FAILED');
      expect(stalled.stderr).toContain('sent nothing for 1 s');
      const next = await gdn(['run', '--bundle', bundle, '--input', 'second']);
      expect(next.exitCode).toBe(0);
      expect(next.stdout).toContain('Back.');
      const sent = JSON.stringify(server.requests.at(-1)?.body);
      expect(sent).toContain('E_MODEL_CALL_FAILED');
      expect(sent).not.toContain('Hello t');
    } finally {
      await server.close();
    }
  });
});

describe('credentials in a Model URL', () => {
  test('are masked in the printed error, in the stored conversation and in what the next turn sends the model', async () => {
    const port = closedPort();
    const secretURL = `http://proxyuser:hunter2pass@127.0.0.1:${port}/v1?api_key=QUERYSECRET123&region=eu`;
    const bundle = await agentBundle(
      serverModel(secretURL, { settings: ['apiKey: { value: test-key }', 'params: { maxRetries: 0 }'] }),
    );
    const failed = await gdn(['run', '--bundle', bundle, '--input', 'first']);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain('E_MODEL_CALL_FAILED');
    expect(failed.stderr).toContain(`http://proxyuser:[REDACTED]@127.0.0.1:${port}/v1?api_key=[REDACTED]&region=eu`);
    for (const secret of ['hunter2pass', 'QUERYSECRET123']) expect(failed.stderr).not.toContain(secret);

    const stateDir = join(bundle, '.goondan');
    const databases = readdirSync(stateDir, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.db'),
    );
    expect(databases.length).toBeGreaterThan(0);
    let stored = '';
    for (const file of databases) {
      const db = new Database(join(stateDir, file), { readonly: true });
      try {
        const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
        for (const { name } of tables) stored += JSON.stringify(db.query(`SELECT * FROM "${name}"`).all());
      } finally {
        db.close();
      }
    }
    expect(stored).toContain('E_MODEL_CALL_FAILED');
    for (const secret of ['hunter2pass', 'QUERYSECRET123']) expect(stored).not.toContain(secret);

    const server = await startOpenAICompatibleServer({ responses: [{ text: 'Back.' }] });
    try {
      await editBundle(bundle, (text) => text.replace(secretURL, server.url));
      const next = await gdn(['run', '--bundle', bundle, '--input', 'second']);
      expect(next.exitCode).toBe(0);
      const sent = JSON.stringify(server.requests.map((request) => request.body));
      expect(sent).toContain('E_MODEL_CALL_FAILED');
      for (const secret of ['hunter2pass', 'QUERYSECRET123']) expect(sent).not.toContain(secret);
    } finally {
      await server.close();
    }
  });
});
