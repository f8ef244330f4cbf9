// The public API of @goondan/core. Every export here is an API decision (STYLE habit 6).

export { type AgentEvent, isUserId, newId, type TurnAuth, USER_ID_RULE, userEvent } from './agent/agent-event.ts';
export {
  AgentInstance,
  type AgentInstanceOptions,
  COMMAND_LINE_SOURCE,
  DEFAULT_MAX_STEPS_PER_TURN,
} from './agent/agent-instance.ts';
export { createMessage } from './agent/create-message.ts';
export {
  type InstanceDatabaseFile,
  instancePaths,
  invalidInstanceKey,
  isInstanceKey,
  listInstanceDatabases,
} from './agent/instance-paths.ts';
export { agentModel, type OpenAgentInstanceOptions, openAgentInstance } from './agent/open-agent-instance.ts';
export type { SpanWriteTiming } from './agent/trace-writes.ts';
export type {
  StepMiddleware,
  StepMiddlewareContext,
  StepOutcome,
  TurnMiddleware,
  TurnMiddlewareContext,
  TurnObserver,
  TurnResult,
} from './agent/turn-types.ts';
export { findBundleDir } from './config/find-bundle-dir.ts';
export { formatProblems } from './config/format-problems.ts';
export { type LoadBundleResult, loadBundle } from './config/load-bundle.ts';
export { parseObjectRef, parseRefEntry, refKey } from './config/object-ref.ts';
export type { PackageDependency, PackageInfo } from './config/package-document.ts';
export { yamlLimits } from './config/parse-yaml-documents.ts';
export { readSourceText } from './config/read-source-text.ts';
export { readUtf8, type Utf8Reading } from './config/read-utf8.ts';
export { resolveValueSource } from './config/resolve-value-source.ts';
export type * from './config/resources.ts';
export { API_VERSION, resourceKinds } from './config/resources.ts';
export { closestName, closestNames } from './errors/closest-names.ts';
export { type ErrorCode, errorCodes, helpUrlFor } from './errors/error-codes.ts';
export { GoondanError } from './errors/goondan-error.ts';
export { quotedValue } from './errors/quoted-value.ts';
export { DEFAULT_ERROR_MESSAGE_LIMIT, toToolError, truncateErrorMessage } from './errors/to-tool-error.ts';
export type {
  ExtensionApi,
  ExtensionRegister,
  ExtensionState,
  MiddlewareByKind,
  PipelineKind,
} from './extensions/extension-api.ts';
export { type LoadedExtensions, loadExtensions } from './extensions/load-extensions.ts';
export { checkModelCredentials } from './models/check-model-credentials.ts';
export { createLanguageModel } from './models/create-language-model.ts';
export { modelCallSettings } from './models/model-call-settings.ts';
export { type PreparedPrompt, PromptCache } from './models/prompt-cache.ts';
export { createScriptedModel, type ScriptedModel, type ScriptedStep } from './models/scripted-model.ts';
export {
  type ModelRetryNotice,
  type ModelStepRequest,
  type ModelStepResult,
  type ModelStepUsage,
  streamModelStep,
} from './models/stream-model-step.ts';
export { AUTH_GRANTED, createOAuthHost, type OAuthHost } from './oauth/oauth-host.ts';
export { provideOAuthService, useOAuthService } from './oauth/oauth-service-slot.ts';
export { OAuthStore, type StoredSession } from './oauth/oauth-store.ts';
export type * from './oauth/oauth-types.ts';
export { openOAuthHost } from './oauth/open-oauth-host.ts';
export { OAUTH_KEY_ENV, OAUTH_KEY_FILE_ENV, resolveOAuthKey } from './oauth/resolve-oauth-key.ts';
export { open as openSealed, seal } from './oauth/sealed-box.ts';
export { serveOAuthCallbacks } from './oauth/serve-oauth-callbacks.ts';
// Orchestrator: one process per agent instance, inter-agent request/send (spec v2.0-b §2.6, §11).
export {
  type AgentCatalogEntry,
  type AgentProcessInfo,
  type AgentReply,
  type AgentRequestOptions,
  type AgentSendOptions,
  type AgentsRuntime,
  DEFAULT_AGENT_REQUEST_TIMEOUT_MS,
  MAX_AGENT_REQUEST_TIMEOUT_MS,
  type ToolTraceContext,
} from './orchestrator/agents-runtime.ts';
export { forwardNotification } from './orchestrator/forward-notification.ts';
export type { IpcMessage } from './orchestrator/ipc-message.ts';
export { isProcessAlive } from './orchestrator/is-process-alive.ts';
export { createLinkedTransports } from './orchestrator/linked-transports.ts';
export { type NatsConfig, natsNames } from './orchestrator/nats/nats-config.ts';
export { createNatsSwarmTransport, type NatsSwarmTransport } from './orchestrator/nats/nats-swarm-transport.ts';
export { type NatsWorker, type NatsWorkerOptions, startNatsWorker } from './orchestrator/nats/nats-worker.ts';
export {
  type AgentNotification,
  DEFAULT_GRACE_PERIOD_MS,
  Orchestrator,
  type OrchestratorOptions,
  type OrchestratorSendOptions,
  type ProcessLifecycleEvent,
  type ShutdownReport,
} from './orchestrator/orchestrator.ts';
export {
  type OrchestratorSnapshot,
  orchestratorStateDir,
  readOrchestratorStates,
} from './orchestrator/orchestrator-state-file.ts';
export { defaultRestartPolicy, type RestartPolicy, restartDelay } from './orchestrator/restart-backoff.ts';
export {
  type AgentProcessConfig,
  type AgentProcessConnection,
  type SpawnAgentProcess,
  spawnAgentProcess,
} from './orchestrator/spawn-agent-process.ts';
export { resolveSwarm, type SwarmTopology } from './orchestrator/swarm-topology.ts';
export { joinSwarmTraces } from './orchestrator/swarm-traces.ts';
export { ipcSwarmTransport, type SwarmTransport } from './orchestrator/swarm-transport.ts';
export type { Transport } from './orchestrator/transport.ts';
export type {
  ApprovalCoordinator,
  ApprovalGate,
  ApprovalRequest,
  ApprovalResolution,
} from './permissions/approvals.ts';
export {
  DEFAULT_CONFIRM_ABOVE,
  type GuardrailFlags,
  type GuardrailOptions,
  type GuardrailPlan,
  type GuardrailPlanner,
  type GuardrailPreview,
  guardrailParameters,
  PREVIEW_CHANGE_LIMIT,
  withGuardrail,
} from './permissions/guardrail.ts';
export {
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DEFAULT_CATEGORY_DECISIONS,
  PermissionPolicy,
  type PolicyVerdict,
} from './permissions/permission-policy.ts';
export type * from './permissions/permission-types.ts';
export { DEFAULT_RISK_CATEGORY, permissionDecisions, riskCategories } from './permissions/permission-types.ts';
export { redactKnownSecrets } from './permissions/redact-known-secrets.ts';
export { containsCredential, redactSecrets, secretValuesFromEnv } from './permissions/redact-secrets.ts';
export { knownSecretValues, MIN_KNOWN_SECRET_CHARS, rememberSecretValue } from './permissions/secret-registry.ts';
export { composeMiddleware, type Middleware } from './pipeline/compose-middleware.ts';
export { environmentBlock } from './processes/environment-block.ts';
export { findToolProcesses, killToolProcessTree, TOOL_TREE_VARIABLE } from './processes/kill-tool-process-tree.ts';
export { openToolProcessTree, type ToolProcessTree } from './processes/open-tool-process-tree.ts';
// Durable scheduler (docs/scheduler.md): schedules in SQLite, `schedule.fired` events from system:scheduler.
export { orchestratorDeliver } from './scheduler/orchestrator-deliver.ts';
export {
  firingEventId,
  SCHEDULE_FIRED,
  SCHEDULER_SOURCE,
  scheduleFiredEvent,
} from './scheduler/schedule-event.ts';
export { nextOccurrence, type Recurrence } from './scheduler/schedule-recurrence.ts';
export {
  openScheduleStore,
  type ScheduleListPage,
  ScheduleStore,
  scheduleStorePath,
} from './scheduler/schedule-store.ts';
export type * from './scheduler/schedule-types.ts';
export {
  DEFAULT_LATE_AFTER_MS,
  DEFAULT_MAX_SLEEP_MS,
  Scheduler,
  type SchedulerOptions,
} from './scheduler/scheduler.ts';
export { ApprovalStore } from './store/approval-store.ts';
export { AuditBatch, type AuditBatchOptions, DEFAULT_AUDIT_FLUSH_MS } from './store/audit-batch.ts';
export { type AuditFilter, type AuditRecord, AuditStore, type AuditStoreOptions } from './store/audit-store.ts';
export { buildSpanTree, type SpanNode } from './store/build-span-tree.ts';
export { ConversationStore, type ConversationTail } from './store/conversation-store.ts';
export { InstanceStateStore } from './store/instance-state-store.ts';
export { acquireInstanceWriterLock, type InstanceWriterLock } from './store/instance-writer-lock.ts';
export { openInstanceDatabase } from './store/open-instance-database.ts';
export { type ReopeningDatabase, reopeningDatabase } from './store/reopening-database.ts';
export { watchFileInPlace } from './store/store-in-place.ts';
export { toOtlpJson } from './store/to-otlp-json.ts';
export { newSpanId, newTraceId } from './store/trace-ids.ts';
export { type SpanRecord, type TraceRecord, TraceStore } from './store/trace-store.ts';
export { type TraceSummary, traceSummaries } from './store/trace-summaries.ts';
export { type GenAiSpanView, genAiSpan } from './telemetry/gen-ai-span.ts';
export { type OtlpTelemetryOptions, startOtlpTelemetry } from './telemetry/otlp-telemetry.ts';
export type { SpanContent, SpanTelemetry } from './telemetry/span-telemetry.ts';
export { type TelemetryConfig, telemetryConfig } from './telemetry/telemetry-config.ts';
export { settlesWithin } from './timers/settles-within.ts';
export { type AgentToolset, createAgentToolset, selectAgent, type UnavailableTool } from './tools/agent-toolset.ts';
export type { CallScope } from './tools/call-scope.ts';
export { CatalogBuilder } from './tools/catalog-builder.ts';
export { guardProcessErrors } from './tools/guard-process-errors.ts';
export { toJsonSafe } from './tools/to-json-safe.ts';
export {
  type AvailabilityContext,
  checkAvailability,
  clearAvailabilityCache,
  findCommand,
  firstCommand,
  type ToolAvailability,
} from './tools/tool-availability.ts';
export { ToolCatalog } from './tools/tool-catalog.ts';
export { ToolExecutor, type ToolExecutorOptions } from './tools/tool-executor.ts';
export type { ToolHandlers } from './tools/tool-handlers.ts';
export { isPendingSubmission, JobTable } from './tools/tool-jobs.ts';
export { buildToolName, checkNamePart, parseToolName, providerToolNamePattern } from './tools/tool-name.ts';
export {
  DEFAULT_OUTPUT_LIMIT,
  DEFAULT_TOOL_TIMEOUT_MS,
  type RegisteredTool,
  type ToolRegistrationOptions,
  ToolRegistry,
} from './tools/tool-registry.ts';
export type * from './types.ts';
export { deleteInSource, setInSource, type YamlPath } from './yaml-edit/edit-yaml-source.ts';
export { writeEditedYaml } from './yaml-edit/write-edited-yaml.ts';
