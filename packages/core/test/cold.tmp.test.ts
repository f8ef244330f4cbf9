import { test } from 'bun:test';
import { startSwarm } from './swarm-fixture.ts';

test('cold', async () => {
  const times: Record<string, number> = {};
  const swarm = await startSwarm({ scripts: { coordinator: [{ text: 'ok' }], worker: [{ text: 'ok' }] } }, {
    onLifecycle: (e) => { times[`${e.type}:${e.agent}`] = performance.now(); },
  });
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await swarm.orchestrator.spawn('worker', `k${i}`);
    console.log('spawn to ready', (performance.now() - t).toFixed(1));
  }
  const pids = swarm.orchestrator.list().map((p) => p.pid);
  for (const pid of pids) console.log('rss MB', (Number((await Bun.file(`/proc/${pid}/status`).text()).match(/VmRSS:\s+(\d+)/)![1]) / 1024).toFixed(1));
  await swarm.orchestrator.shutdown();
});
