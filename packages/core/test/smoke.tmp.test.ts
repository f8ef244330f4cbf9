import { expect, test } from 'bun:test';
import { startSwarm } from './swarm-fixture.ts';

test('smoke', async () => {
  const swarm = await startSwarm({
    scripts: {
      coordinator: [{ toolCalls: [{ name: 'agents__request', args: { target: 'worker', input: 'hi' } }] }, { text: 'done' }],
      worker: [{ text: 'worker says hi' }],
    },
  });
  const t = performance.now();
  const result = await swarm.orchestrator.request({ input: 'go' });
  console.log(performance.now() - t, JSON.stringify(result), swarm.lines);
  console.log(swarm.orchestrator.list());
  const report = await swarm.orchestrator.shutdown();
  console.log(report);
  expect(result.text).toBe('done');
});
