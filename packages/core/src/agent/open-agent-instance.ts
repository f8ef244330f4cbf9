import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { parseObjectRef } from '../config/object-ref.ts';
import type { AgentResource, Bundle, ModelResource, SwarmResource } from '../config/resources.ts';
import { checkApiOptions, isObject, isText, optional } from '../errors/check-api-options.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { loadExtensions } from '../extensions/load-extensions.ts';
import { checkModelCredentials } from '../models/check-model-credentials.ts';
import { createLanguageModel } from '../models/create-language-model.ts';
import { modelCallSettings } from '../models/model-call-settings.ts';
import type { AgentsRuntime } from '../orchestrator/agents-runtime.ts';
import { redactSecrets, secretValuesFromEnv } from '../permissions/redact-secrets.ts';
import { ApprovalStore } from '../store/approval-store.ts';
import { AuditBatch } from '../store/audit-batch.ts';
import { AuditStore } from '../store/audit-store.ts';
import { ConversationStore } from '../store/conversation-store.ts';
import { InboxStore } from '../store/inbox-store.ts';
import { InstanceStateStore } from '../store/instance-state-store.ts';
import { acquireInstanceWriterLock, type InstanceWriterLock } from '../store/instance-writer-lock.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { RuntimeNotices } from '../store/runtime-notices.ts';
import { watchStoreInPlace } from '../store/store-in-place.ts';
import { toStoreError } from '../store/to-store-error.ts';
import { TraceStore } from '../store/trace-store.ts';
import { openSpanTelemetry } from '../telemetry/open-span-telemetry.ts';
import { createAgentToolset } from '../tools/agent-toolset.ts';
import type { JsonValue, ToolCallMiddleware, ToolHandler } from '../types.ts';
import { AgentInstance } from './agent-instance.ts';
import { instancePaths } from './instance-paths.ts';
import type { SpanWriteTiming } from './trace-writes.ts';
import type { StepMiddleware, TurnMiddleware, TurnObserver } from './turn-types.ts';

export interface OpenAgentInstanceOptions {
  bundle: Bundle;
  handlers: Map<string, Record<string, ToolHandler>>;
  agent: AgentResource;
  instanceKey: string;
  /** Where keys are read from (process.env by default). */
  env?: Record<string, string | undefined>;
  /** False when no model will run (tool-only front ends): finished jobs do not start turns. */
  deliverJobCompletions?: boolean;
  /**
   * True (default): this process runs the instance's turns, so it takes the instance's writer lock (another
   * running process makes the open fail with E_INSTANCE_BUSY) and repairs the stored conversation. False for
   * tool-only front ends (`gdn tools call`, `gdn mcp serve`): the conversation is only read, no lock is taken,
   * and the instance refuses to run turns.
   */
  writer?: boolean;
  /** What this process is, shown to a second writer refused with E_INSTANCE_BUSY (default: from process.argv). */
  holder?: string;
  /** Use this model instead of the Agent's Model resource (tests). */
  model?: LanguageModelV4;
  stateDir?: string;
  observer?: TurnObserver;
  logger?: Console;
  turnMiddlewares?: readonly TurnMiddleware[];
  stepMiddlewares?: readonly StepMiddleware[];
  toolCallMiddlewares?: readonly ToolCallMiddleware[];
  /** The agents runtime tools reach as ctx.agents (agent processes under an Orchestrator). */
  agents?: AgentsRuntime;
  /** When ended turns' spans are written (AgentInstanceOptions.spanWrites; tests). */
  spanWrites?: SpanWriteTiming;
}

/** The Model an Agent points at (spec.modelConfig.modelRef). */
export function agentModel(bundle: Bundle, agent: AgentResource): ModelResource {
  const ref = parseObjectRef(agent.spec.modelConfig?.modelRef);
  const model = ref ? bundle.resources.get(`Model/${ref.name}`) : undefined;
  if (model?.kind !== 'Model') {
    throw new GoondanError(
      'E_AGENT_NO_MODEL',
      `Agent '${agent.metadata.name}' has no spec.modelConfig.modelRef to a Model.`,
    );
  }
  return model;
}

/** The step cap: the Agent's policy, else the Swarm's that lists the agent, else the default. */
function maxStepsFor(bundle: Bundle, agent: AgentResource): number | undefined {
  if (agent.spec.policy?.maxStepsPerTurn !== undefined) return agent.spec.policy.maxStepsPerTurn;
  for (const resource of bundle.resources.values()) {
    if (resource.kind !== 'Swarm') continue;
    const swarm = resource as SwarmResource;
    if (swarm.spec.agents.some((ref) => parseObjectRef(ref)?.name === agent.metadata.name))
      return swarm.spec.policy?.maxStepsPerTurn;
  }
  return undefined;
}

/**
 * Opens an agent instance from a loaded bundle: checks the model's credentials before any turn (a missing key
 * names the variable to set), opens the instance database and workspace, and resumes the stored conversation.
 */
export async function openAgentInstance(options: OpenAgentInstanceOptions): Promise<AgentInstance> {
  checkApiOptions('openAgentInstance', options, [
    [
      'bundle',
      (value) => (value as { resources?: unknown } | null)?.resources instanceof Map,
      'a Bundle (from loadBundle)',
    ],
    ['handlers', (value) => value instanceof Map, 'the handlers Map loadBundle gives'],
    [
      'agent',
      (value) => (value as { kind?: unknown } | null)?.kind === 'Agent',
      'an Agent resource of the bundle (selectAgent gives one)',
    ],
    ['instanceKey', isText, 'an instance key (text)'],
    ['stateDir', optional(isText), 'a directory (a path)'],
    ['model', optional(isObject), 'a LanguageModelV4'],
    ['observer', optional(isObject), 'a TurnObserver object'],
  ]);
  const { bundle, agent, instanceKey } = options;
  // A given model (tests, tool-only front ends) needs no Model resource; otherwise keys are checked before any turn.
  const modelResource = options.model ? null : agentModel(bundle, agent);
  const env = options.env ?? process.env;
  let model = options.model;
  if (!model && modelResource) {
    checkModelCredentials(modelResource, env);
    model = createLanguageModel(modelResource, { env });
  }
  const paths = instancePaths({
    rootDir: bundle.rootDir,
    agentName: agent.metadata.name,
    instanceKey,
    stateDir: options.stateDir,
  });
  mkdirSync(paths.workdir, { recursive: true });
  // The lock comes first: nothing of the instance is read or repaired while another process may be writing it.
  const writer = options.writer !== false;
  const lock: InstanceWriterLock | null = writer
    ? acquireInstanceWriterLock({
        dir: dirname(paths.databaseFile),
        instance: `${agent.metadata.name}/${instanceKey}`,
        ...(options.holder ? { holder: options.holder } : {}),
      })
    : null;
  try {
    return await openLocked({ ...options, modelResource, model: model!, env, paths, writer, lock });
  } catch (thrown) {
    lock?.release();
    // A database that opened but cannot be written (a read-only or immutable file) fails at the first write.
    throw toStoreError(thrown, paths.databaseFile);
  }
}

async function openLocked(
  options: OpenAgentInstanceOptions & {
    modelResource: ModelResource | null;
    model: LanguageModelV4;
    env: Record<string, string | undefined>;
    paths: ReturnType<typeof instancePaths>;
    writer: boolean;
    lock: InstanceWriterLock | null;
  },
): Promise<AgentInstance> {
  const { bundle, agent, instanceKey, modelResource, model, env, paths, lock } = options;
  const db = openInstanceDatabase(paths.databaseFile);
  // A writer that goes on after its files were deleted would write into files no one reads again.
  const storeInPlace = options.writer
    ? watchStoreInPlace(`${agent.metadata.name}/${instanceKey}`, [
        paths.databaseFile,
        join(dirname(paths.databaseFile), 'writer.lock'),
      ])
    : undefined;
  const toolset = createAgentToolset({
    bundle,
    handlers: options.handlers,
    agent,
    middlewares: options.toolCallMiddlewares,
  });
  const logger = options.logger ?? console;
  let extensions: Awaited<ReturnType<typeof loadExtensions>>;
  try {
    extensions = await loadExtensions({
      bundle,
      agent,
      instanceKey,
      workdir: paths.workdir,
      registry: toolset.registry,
      state: new InstanceStateStore(db),
      logger,
    });
  } catch (thrown) {
    db.close();
    throw thrown;
  }
  toolset.executor = toolset.executor.withMiddlewares(extensions.toolCallMiddlewares);
  // Secrets are redacted from approvals and the audit log by shape, by key, and by the values of secret variables.
  const secretValues = secretValuesFromEnv(env);
  // Audit rows are queued off the call path and committed with the step's results (docs/performance.md).
  const audit = new AuditBatch(db, new AuditStore(db, { secretValues }), {
    onError: (error) => logger.warn?.(`audit write failed: ${(error as Error)?.message ?? String(error)}`),
  });
  const redact = (value: JsonValue) => redactSecrets(value, { secretValues });
  // Only the process that runs turns exports spans (OTEL_EXPORTER_OTLP_ENDPOINT, docs/telemetry.md).
  const telemetry = options.writer
    ? await openSpanTelemetry({ env, agent: agent.metadata.name, instanceKey, redact, logger })
    : undefined;
  try {
    return new AgentInstance({
      agent,
      instanceKey,
      toolset,
      model,
      callSettings: modelResource ? modelCallSettings(modelResource, agent.spec.modelConfig?.params) : {},
      ...(modelResource ? { modelResource } : {}),
      conversation: new ConversationStore(db, { soleWriter: options.writer }),
      traces: new TraceStore(db, { secretValues }),
      workdir: paths.workdir,
      observer: options.observer,
      logger,
      deliverJobCompletions: options.deliverJobCompletions,
      onReset: extensions.resetListeners,
      writer: options.writer,
      ...(storeInPlace ? { storeInPlace } : {}),
      ...(options.writer ? { inbox: new InboxStore(db), notices: new RuntimeNotices(db) } : {}),
      onClose: [
        ...extensions.closeListeners,
        () => telemetry?.shutdown(),
        () => audit.close(),
        () => db.close(),
        () => lock?.release(),
      ],
      turnMiddlewares: [...(options.turnMiddlewares ?? []), ...extensions.turnMiddlewares],
      stepMiddlewares: [...(options.stepMiddlewares ?? []), ...extensions.stepMiddlewares],
      maxStepsPerTurn: maxStepsFor(bundle, agent),
      ...(agent.spec.toolConcurrency === undefined ? {} : { toolConcurrency: agent.spec.toolConcurrency }),
      approvalStore: new ApprovalStore(db),
      redact,
      ...(telemetry ? { telemetry } : {}),
      audit: (entry) => audit.append(entry),
      auditLog: audit,
      ...(options.agents ? { agents: options.agents } : {}),
      ...(options.spanWrites ? { spanWrites: options.spanWrites } : {}),
    });
  } catch (thrown) {
    await telemetry?.shutdown();
    db.close();
    throw thrown;
  }
}
