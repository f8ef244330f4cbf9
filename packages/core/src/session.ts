// `@goondan/core/session`: the part of the public API a command needs to start agents (load a bundle, open an
// instance, report problems), without the rest of index.ts (the Orchestrator, OAuth, the scheduler, NATS, ...).
// Loading the whole barrel costs a `gdn run` ~25 ms of its start (docs/performance.md#start-up); what is here is
// also exported by index.ts, so the two never disagree.

export { isUserId, USER_ID_RULE, userEvent } from './agent/agent-event.ts';
export { instancePaths } from './agent/instance-paths.ts';
export { openAgentInstance } from './agent/open-agent-instance.ts';
export { findBundleDir } from './config/find-bundle-dir.ts';
export { formatProblems } from './config/format-problems.ts';
export { loadBundle } from './config/load-bundle.ts';
export { parseObjectRef } from './config/object-ref.ts';
export { readSourceText } from './config/read-source-text.ts';
export { closestName } from './errors/closest-names.ts';
export { errorCodes } from './errors/error-codes.ts';
export { GoondanError } from './errors/goondan-error.ts';
export { toToolError } from './errors/to-tool-error.ts';
export { forwardNotification } from './orchestrator/forward-notification.ts';
export { isProcessAlive } from './orchestrator/is-process-alive.ts';
export { resolveSwarm } from './orchestrator/swarm-topology.ts';
export { redactKnownSecrets } from './permissions/redact-known-secrets.ts';
export { redactSecrets, secretValuesFromEnv } from './permissions/redact-secrets.ts';
export { ConversationStore } from './store/conversation-store.ts';
export { openInstanceDatabase } from './store/open-instance-database.ts';
export { selectAgent } from './tools/agent-toolset.ts';
export { guardProcessErrors } from './tools/guard-process-errors.ts';
