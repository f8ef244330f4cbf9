// Ctrl-C at the terminal of `gdn serve`: the terminal sends SIGINT to its whole foreground process group, connector
// processes included. The host alone decides when a connector stops (after the running turns' replies are handed
// over, docs/connectors.md#processes), so a connector must outlive the signal and deliver the reply.
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, cliEnv, mainTs, makeTempDir } from './helpers.ts';

const spawned: ReturnType<typeof Bun.spawn>[] = [];
afterAll(async () => {
  for (const proc of spawned) proc.kill('SIGKILL');
  await cleanupTempDirs();
});

async function waitUntil(predicate: () => boolean, what: string, proc: ReturnType<typeof Bun.spawn>) {
  while (!predicate()) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`gdn serve ended before ${what}`);
    await Bun.sleep(20);
  }
}

async function bundle(dir: string): Promise<void> {
  await writeFile(
    join(dir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: slow-model }
spec:
  provider: scripted
  model: fixture
  script: [{ toolCalls: [{ name: gate__wait, args: {} }] }, { text: "Gate passed." }]
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: gate }
spec:
  entry: ./gate.ts
  exports:
    - name: wait
      description: Waits until the test opens the gate
      parameters: { type: object, properties: {} }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: slow }
spec:
  modelConfig: { modelRef: Model/slow-model }
  tools: [Tool/gate]
---
apiVersion: goondan.ai/v1
kind: Connector
metadata: { name: desk }
spec:
  entry: ./desk.ts
  events:
    - name: ask
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: desk-c }
spec:
  connectorRef: Connector/desk
  ingress:
    rules:
      - route: { agentRef: Agent/slow, instanceKey: desk }
`,
  );
  await writeFile(
    join(dir, 'gate.ts'),
    `import { existsSync, writeFileSync } from 'node:fs';
export const handlers = {
  wait: async () => {
    writeFileSync(${JSON.stringify(join(dir, 'gate-waiting'))}, 'waiting');
    while (!existsSync(${JSON.stringify(join(dir, 'gate-open'))})) await Bun.sleep(20);
    return 'open';
  },
};
`,
  );
  await writeFile(
    join(dir, 'desk.ts'),
    `import { writeFileSync } from 'node:fs';
export default async function desk(ctx) {
  ctx.onReply((reply) => writeFileSync(${JSON.stringify(join(dir, 'reply'))}, reply.agent + ': ' + reply.text));
  await ctx.emit({ name: 'ask', message: { type: 'text', text: 'take your time' } });
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
}
`,
  );
}

describe('gdn serve stopped by Ctrl-C (SIGINT to its process group)', () => {
  test('a turn running at the Ctrl-C still gets its reply to its connector; the connector is not restarted', async () => {
    const dir = await makeTempDir('gdn-serve-ctrl-c-');
    await bundle(dir);
    // A process group of its own, led by gdn serve, as a shell's job: the signal below is the terminal's Ctrl-C.
    const proc = Bun.spawn([process.execPath, mainTs, 'serve', '--bundle', dir, '--port', '0'], {
      env: cliEnv(),
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
      detached: true,
    });
    spawned.push(proc);
    let stderr = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
    })();
    await waitUntil(() => existsSync(join(dir, 'gate-waiting')), 'the turn reached the gate', proc);
    process.kill(-proc.pid, 'SIGINT');
    await waitUntil(() => stderr.includes('SIGINT: no new requests'), 'the host saw the Ctrl-C', proc);
    await writeFile(join(dir, 'gate-open'), '');
    expect(await proc.exited).toBe(130);
    await reading;
    expect(await readFile(join(dir, 'reply'), 'utf8').catch(() => 'no reply')).toBe('slow: Gate passed.');
    expect(stderr).not.toContain('E_CONNECTOR_FAILED');
  }, 90_000);
});
