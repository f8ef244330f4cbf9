import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import {
  type ApprovalRecord,
  type Bundle,
  createAgentToolset,
  createMessage,
  createScriptedModel,
  instancePaths,
  openAgentInstance,
  type RiskCategory,
  selectAgent,
  type ToolCall,
  type ToolCatalog,
  type ToolHandler,
  type ToolResult,
  toToolError,
} from '@goondan/core';
import { type ApprovalAsker, approvalNeededLine } from './elicit-approval.ts';

/** Calls from MCP clients come from this turn source: permissions may give them rules of their own. */
export const MCP_CLIENT_SOURCE = { kind: 'mcp', name: 'client' } as const;

/** What is served: the catalog the model would see at its next Step, and calls through the real pipeline. */
export interface Served {
  /** `Agent/name`, or `every Tool of the bundle` in tool-development mode. */
  label: string;
  /**
   * The catalog, made afresh. When that fails (a step middleware threw) the failure is logged and the catalog last
   * made is given instead; only the first one's failure is thrown.
   */
  catalog(): Promise<ToolCatalog>;
  /** The tool's risk category for calls from MCP clients (null: not registered). */
  categoryOf(toolName: string): RiskCategory | null;
  /**
   * `askApproval`: how an approval this call waits for is put to the MCP client (asked, or told how to answer), before
   * `gdn approvals`; none: the client is neither asked nor told.
   */
  call(call: ToolCall, options: { signal: AbortSignal; askApproval?: ApprovalAsker }): Promise<ToolResult>;
  close(): Promise<void>;
}

/**
 * With an Agent: its real instance (workspace, state, extensions such as mcp or tool exposure, their step and toolCall
 * middleware) on a placeholder model that is never called, so what is served is what `gdn tools list` shows. Without
 * agents: every Tool the bundle declares, as `gdn tools list` does.
 */
export async function openServed(options: {
  bundle: Bundle;
  handlers: Map<string, Record<string, ToolHandler>>;
  agentName: string | undefined;
  instanceKey: string;
  logger: Console;
}): Promise<Served> {
  const { bundle, handlers, instanceKey, logger } = options;
  const agent = selectAgent(bundle, options.agentName);
  if (agent) {
    /** Calls in progress whose client can answer approvals, by tool call id. */
    const askers = new Map<string, { asker: ApprovalAsker; signal: AbortSignal }>();
    const instance = await openAgentInstance({
      bundle,
      handlers,
      agent,
      instanceKey,
      model: createScriptedModel([], { modelId: 'mcp-serve' }),
      deliverJobCompletions: false,
      logger,
      // A call whose permissions say ask waits, stored, for an answer: from the MCP client when it can be asked
      // (elicitation), and from `gdn approvals` in any case; the first answer counts.
      observer: { onApprovalRequested: (record) => void requested(record) },
    });
    const requested = async (record: ApprovalRecord) => {
      const waiting = askers.get(record.toolCallId);
      // Says what is done with the client: asked (elicitation), told (a progress notification), or neither.
      logger.error(approvalNeededLine(record, waiting?.asker.reach ?? 'none'));
      if (!waiting) return;
      const answer = await waiting.asker.ask(record, waiting.signal);
      if (!answer) return;
      try {
        instance.answerApproval(record.id, answer);
      } catch (thrown) {
        // Answered meanwhile with gdn approvals, expired, or the call was cancelled: that answer stands.
        logger.debug(
          `gdn mcp serve: the MCP client's answer to ${record.id} came too late: ${(thrown as Error)?.message}`,
        );
      }
    };
    let lastCatalog: ToolCatalog | undefined;
    return {
      label: `Agent/${agent.metadata.name}`,
      async catalog() {
        try {
          lastCatalog = await instance.previewCatalog({ source: MCP_CLIENT_SOURCE });
        } catch (thrown) {
          if (!lastCatalog) throw thrown;
          // Calls still go through the pipeline, which makes the catalog again: while it fails they answer isError.
          const { code, message } = toToolError(thrown);
          logger.error(
            `gdn mcp serve: tools/list: ${code}: ${message}; answering with the catalog last made (${lastCatalog.size} tools)`,
          );
        }
        return lastCatalog;
      },
      categoryOf: (name) => instance.permissionOf(name, MCP_CLIENT_SOURCE)?.category ?? null,
      async call(call, { signal, askApproval }) {
        // Once the call is over (answered with gdn approvals, expired, cancelled), a question still open in the
        // client is withdrawn (notifications/cancelled).
        const over = new AbortController();
        if (askApproval) askers.set(call.id, { asker: askApproval, signal: AbortSignal.any([signal, over.signal]) });
        try {
          return await instance.callTool(call, { signal, source: MCP_CLIENT_SOURCE });
        } finally {
          askers.delete(call.id);
          over.abort();
        }
      },
      close: () => instance.close(),
    };
  }
  const toolset = createAgentToolset({ bundle, handlers, agent: null });
  const { workdir } = instancePaths({ rootDir: bundle.rootDir, agentName: 'cli', instanceKey });
  mkdirSync(workdir, { recursive: true });
  return {
    label: 'every Tool of the bundle',
    catalog: async () => toolset.catalogBuilder.build(),
    categoryOf: (name) => toolset.executor.verdictFor(name, MCP_CLIENT_SOURCE)?.category ?? null,
    call: (call, { signal }) =>
      toolset.executor.execute(call, {
        catalog: toolset.catalogBuilder.build(),
        scope: {
          agentName: 'cli',
          instanceKey,
          turnId: `turn_mcp_${randomUUID()}`,
          message: createMessage(
            {
              role: 'assistant',
              content: [{ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args }],
            },
            { type: 'assistant' },
          ),
          workdir,
          logger,
          signal,
          source: MCP_CLIENT_SOURCE,
        },
      }),
    close: async () => toolset.executor.jobs.abortAll(),
  };
}
