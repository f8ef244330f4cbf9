// gdn serve with a Telegram channel, as real processes: the host polls a fake Bot API server on 127.0.0.1, a chat
// message becomes a turn of that chat's instance and the reply comes back; a refused token stops the host.
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeBotApi, startFakeBotApi } from '../../base/test/fake-bot-api.ts';
import { cleanupTempDirs, cliEnv, makeTempDir, startGdn } from './helpers.ts';

const TOKEN = '4242:serve-test-token';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
const apis: FakeBotApi[] = [];
afterEach(async () => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
  await Promise.all(apis.splice(0).map((api) => api.stop()));
});

async function telegramBundle(apiRoot: string): Promise<string> {
  const dir = await makeTempDir('gdn-serve-telegram-');
  await writeFile(
    join(dir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: main
spec:
  provider: scripted
  model: fixture
  script:
    - text: Hello from the bot.
---
apiVersion: goondan.ai/v1
kind: Agent
metadata:
  name: assistant
spec:
  modelConfig:
    modelRef: Model/main
  extensions:
    - ref: Extension/telegram
      config:
        token: { valueFrom: { env: SERVE_TEST_TELEGRAM_TOKEN } }
        allowedChatIds: [501]
        apiRoot: ${apiRoot}
        pollTimeoutSeconds: 5
`,
  );
  return dir;
}

function serve(bundle: string, token: string) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0'], {
    env: cliEnv({ SERVE_TEST_TELEGRAM_TOKEN: token }),
  });
  started.push(server);
  return server;
}

describe('gdn serve with a Telegram channel', () => {
  test('a chat message is answered by that chat instance, and SIGTERM stops the bot', async () => {
    const api = startFakeBotApi({ token: TOKEN });
    apis.push(api);
    const server = serve(await telegramBundle(api.apiRoot), TOKEN);
    await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
    api.pushMessage(501, 'hello bot');
    await api.waitFor(() => api.callsOf('sendMessage', 501).length > 0, 'the reply');
    expect(api.callsOf('sendMessage', 501).map((call) => call.payload.text)).toEqual(['Hello from the bot.']);
    expect(server.stderr).not.toContain(TOKEN);
    server.proc.kill('SIGTERM');
    const result = await server.finish();
    expect(result.exitCode).toBe(143);
  });

  test('a token Telegram refuses stops gdn serve with E_CHANNEL_AUTH', async () => {
    const api = startFakeBotApi({ token: TOKEN });
    apis.push(api);
    const server = serve(await telegramBundle(api.apiRoot), '4242:revoked');
    const result = await server.finish();
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('E_CHANNEL_AUTH');
    expect(result.stderr).not.toContain('4242:revoked');
    expect(api.calls.map((call) => call.method)).toEqual(['getMe']);
  });
});
