import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadBundle } from './load-bundle.ts';

const baseDir = resolve(import.meta.dir, '..', '..', '..', 'base');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('Connection rules', () => {
  test('a rule on a property its event does not declare says so, names the declared ones and the one meant', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gdn-connection-'));
    dirs.push(dir);
    await writeFile(
      join(dir, 'goondan.yaml'),
      `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: main }
spec: { provider: scripted, model: demo }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: desk }
spec: { modelConfig: { modelRef: Model/main } }
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: slack-desk }
spec:
  connectorRef: { kind: Connector, name: slack, package: "@goondan/base" }
  secrets:
    SLACK_SIGNING_SECRET: { value: signing-secret }
    SLACK_BOT_TOKEN: { value: xoxb-test }
  ingress:
    rules:
      - match: { event: app_mention, properties: { chanel_id: C-BILLING } }
        route: { agentRef: Agent/desk }
`,
    );
    const { problems } = await loadBundle({ dir, libraries: [baseDir], libraryCacheDir: null });
    const problem = problems.find((candidate) => candidate.code === 'E_CONNECTION_INVALID');
    expect(problem?.message).toStartWith(
      'Rule 0 uses property "chanel_id", which event "app_mention" does not declare; properties: ',
    );
    expect(problem?.message).toContain('channel_id');
    expect(problem?.suggestion).toBe('Did you mean "channel_id"?');
  });
});
