// Peer side of bench/cli-start.ts: what an idle agent process holds. Like agent-process-main.ts it gets the bundle
// as JSON (argv[2] is a file holding bundleToJson's output), opens its first agent's instance with lazy tool
// handlers from the same modules (not the package barrel), then prints its RSS after a full GC.
import { readFileSync } from 'node:fs';
import { openAgentInstance } from '../../packages/core/src/agent/open-agent-instance.ts';
import type { AgentResource } from '../../packages/core/src/config/resources.ts';
import { bundleFromJson, lazyToolHandlers } from '../../packages/core/src/orchestrator/bundle-transfer.ts';
import type { JsonValue } from '../../packages/core/src/types.ts';

const bundle = bundleFromJson(JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as JsonValue);
const agent = [...bundle.resources.values()].find((resource) => resource.kind === 'Agent') as AgentResource;
const instance = await openAgentInstance({ bundle, handlers: lazyToolHandlers(bundle), agent, instanceKey: 'idle' });
Bun.gc(true);
console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
await instance.close();
