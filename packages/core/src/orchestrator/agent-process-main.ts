/**
 * Entry of an agent process (DESIGN.md §2: one process per agent instance), started by the Orchestrator as
 * `bun agent-process-main.ts CONFIG_JSON` with an IPC channel. Receives the validated bundle, opens the instance
 * (conversation resumed from disk), sends the `process.ready` handshake, then serves events until `shutdown` or
 * until the orchestrator goes away.
 */
import { openAgentInstance } from '../agent/open-agent-instance.ts';
import type { AgentResource, Bundle } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { quotedValue } from '../errors/quoted-value.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import { aiSdk } from '../models/ai-sdk.ts';
import { createOAuthIpcClient } from '../oauth/oauth-ipc-client.ts';
import { provideOAuthService } from '../oauth/oauth-service-slot.ts';
import { guardProcessErrors } from '../tools/guard-process-errors.ts';
import type { JsonValue } from '../types.ts';
import { AgentProcessHost } from './agent-process-host.ts';
import { AgentsClient } from './agents-client.ts';
import { bundleFromJson, lazyToolHandlers } from './bundle-transfer.ts';
import { eventTypes, type IpcMessage } from './ipc-message.ts';
import { createParentTransport } from './process-transport.ts';
import type { AgentProcessConfig } from './spawn-agent-process.ts';
import { resolveSwarm } from './swarm-topology.ts';

const ORPHAN_CHECK_MS = 500;

const transport = createParentTransport();
let exiting = false;
const exit = (code: number) => {
  if (exiting) return;
  exiting = true;
  process.exit(code);
};
// Belt and braces next to the IPC disconnect: a process whose orchestrator died is reparented; it must not live on.
// `--spare PID`: started ahead by orchestrator PID, told its config later (its first message).
/** How long a spare waits, not taken, before it loads the AI SDK. */
const SPARE_PRELOAD_DELAY_MS = 250;
const spare = process.argv[2] === '--spare';
const parentPid = spare
  ? Number(process.argv[3])
  : (JSON.parse(process.argv[2] ?? '{}') as AgentProcessConfig).parentPid;
setInterval(() => {
  if (process.ppid !== parentPid) exit(0);
}, ORPHAN_CHECK_MS).unref();
// Everything else that comes before the host exists is kept for it: a spare is told its config, and the
// orchestrator may already send more (a shutdown, an event) before the code awaiting the config runs again.
const startMessages: ReadonlySet<string> = new Set([eventTypes.environment, eventTypes.bundle, eventTypes.config]);
const earlier: IpcMessage[] = [];
const stopKeeping = transport.onMessage((message) => {
  if (message.type !== 'event' || !startMessages.has(message.payload.type)) earlier.push(message);
});
const received = new Promise<Bundle>((resolve) => {
  const stop = transport.onMessage((message) => {
    if (message.type !== 'event') return;
    if (message.payload.type === eventTypes.environment) {
      // The real environment (model keys) arrives here, not in our environment block, which tools can read.
      Object.assign(process.env, message.payload.data ?? {});
      return;
    }
    if (message.payload.type !== eventTypes.bundle) return;
    stop();
    resolve(bundleFromJson(message.payload.data ?? {}));
  });
});
// A spare (started ahead, its modules loaded) learns which instance it serves from its first message; one whose
// orchestrator goes away before that exits (the host, once it exists, handles the channel closing itself).
let configured = !spare;
transport.onClose(() => {
  if (!configured) exit(0);
});
// A spare exists to make its agent's first turn quick, and that turn calls the model: it loads the AI SDK while it
// waits (an agent process started directly loads it at its first model call, so an idle one does without it). Not
// at once: the load holds the process for ~100 ms, and a spare taken as soon as it is up (spawns back to back)
// would answer its config only after it; such a spare's first model call loads the SDK instead.
const preload = spare ? setTimeout(aiSdk, SPARE_PRELOAD_DELAY_MS) : undefined;
preload?.unref();
const config: AgentProcessConfig = !spare
  ? (JSON.parse(process.argv[2] ?? '{}') as AgentProcessConfig)
  : await new Promise<AgentProcessConfig>((resolve) => {
      const stop = transport.onMessage((message) => {
        if (message.type !== 'event' || message.payload.type !== eventTypes.config) return;
        stop();
        configured = true;
        clearTimeout(preload);
        resolve(message.payload.data as unknown as AgentProcessConfig);
      });
    });
// An error escaping a tool (its timer, an unawaited promise) fails that call or is logged; the agent lives on.
guardProcessErrors({ log: (line) => console.error(`[agent ${config.agent}] ${line}`) });

stopKeeping();
const host = new AgentProcessHost({
  transport,
  agent: config.agent,
  instanceKey: config.instanceKey,
  exit,
  observe: config.observe,
  earlier,
  ...(config.idleExitMs ? { idleExitMs: config.idleExitMs } : {}),
});

try {
  const bundle = await received;
  const topology = resolveSwarm(bundle, config.swarm);
  const agent = bundle.resources.get(`Agent/${config.agent}`) as AgentResource | undefined;
  if (!topology || agent?.kind !== 'Agent') {
    throw new GoondanError(
      'E_AGENT_UNKNOWN',
      `No agent named ${quotedValue(config.agent)} in Swarm ${quotedValue(config.swarm)}.`,
    );
  }
  const client = new AgentsClient({
    transport,
    agent: config.agent,
    instanceKey: config.instanceKey,
    bundle,
    topology,
  });
  // Tools and extensions here ask the host (the orchestrator's process) for OAuth tokens: it owns the store.
  provideOAuthService(
    createOAuthIpcClient({
      token: (request) => client.query(eventTypes.oauthToken, request as unknown as JsonValue),
      pending: () => client.query(eventTypes.oauthPending, null),
    }),
  );
  const instance = await openAgentInstance({
    bundle,
    handlers: lazyToolHandlers(bundle),
    agent,
    instanceKey: config.instanceKey,
    ...(config.stateDir ? { stateDir: config.stateDir } : {}),
    observer: host.observer(),
    agents: client,
  });
  host.attach(instance, { client, busy: () => instance.jobs.pendingCount() > 0 });
} catch (thrown) {
  const error = toToolError(thrown, { fallbackCode: 'E_AGENT_CRASHED' });
  host.fail({
    code: error.code ?? 'E_AGENT_CRASHED',
    message: error.message,
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
  });
}
