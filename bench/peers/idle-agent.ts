// Peer side of bench/cli-start.ts: what an idle agent process holds. Loads the bundle in argv[2] and opens its first
// agent's instance the way agent-process-main.ts does (the same modules, not the package barrel), then prints its
// RSS after a full GC.
import { openAgentInstance } from '../../packages/core/src/agent/open-agent-instance.ts';
import { loadBundle } from '../../packages/core/src/config/load-bundle.ts';
import type { AgentResource } from '../../packages/core/src/config/resources.ts';

const loaded = await loadBundle({ dir: process.argv[2]!, importHandlers: true });
if (!loaded.bundle) throw new Error(JSON.stringify(loaded.problems));
const agent = [...loaded.bundle.resources.values()].find((resource) => resource.kind === 'Agent') as AgentResource;
const instance = await openAgentInstance({
  bundle: loaded.bundle,
  handlers: loaded.handlers ?? new Map(),
  agent,
  instanceKey: 'idle',
});
Bun.gc(true);
console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
await instance.close();
