import { afterAll, describe, expect, test } from 'bun:test';
import { agentBundle, cleanupTempDirs, editBundle, gdn, gdnJson, serverModel } from './helpers.ts';

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
