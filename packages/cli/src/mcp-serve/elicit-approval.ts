import type { ApprovalAnswer, ApprovalRecord } from '@goondan/core';
import type { ClientCapabilities, ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { shortArgs } from '../tool-call-printer.ts';

/**
 * How an approval a call waits for reaches its MCP client, which depends on the client (its capabilities, the call's
 * progressToken): `elicitation`, asked with a form (elicitation/create); `progress`, it cannot be asked but is told in a
 * progress notification of the call how to answer; `none`, neither.
 */
export type ApprovalReach = 'elicitation' | 'progress' | 'none';

/** Puts an approval to the MCP client; the answer, or null when it gave none (then `gdn approvals` answers it). */
export interface ApprovalAsker {
  reach: ApprovalReach;
  ask(record: ApprovalRecord, signal: AbortSignal): Promise<ApprovalAnswer | null>;
}

/**
 * The stderr line of `gdn mcp serve` when a call needs approval: what was done with the MCP client (asked, told, or
 * neither, as `reach` says) and how to answer from another terminal, which works in every case.
 */
export function approvalNeededLine(
  record: Pick<ApprovalRecord, 'id' | 'toolName' | 'rule'>,
  reach: ApprovalReach,
): string {
  const noForm = 'it declares no form elicitation';
  const client = {
    elicitation: 'asking the MCP client (elicitation/create); or ',
    progress: `the MCP client cannot be asked (${noForm}), so it is told in a progress notification; `,
    none: `the MCP client was not asked (${noForm}) nor told (the call has no progressToken); `,
  }[reach];
  return `approval needed ${record.id}: ${record.toolName} (${record.rule}); ${client}answer with 'gdn approvals approve ${record.id}' or 'gdn approvals deny ${record.id} --reason TEXT'`;
}

/** What a CallTool handler's `extra` offers for a request to the client on the same stream as the call. */
type SendRequest = (
  request: ElicitRequest,
  resultSchema: typeof ElicitResultSchema,
  options: { signal: AbortSignal; timeout: number },
) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;

/** True when the client can show a form: `elicitation: {}` (2025-06) or `elicitation: { form: {} }` (2025-11). */
export function canElicitForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

const requestedSchema: ElicitRequest['params'] & { mode?: 'form' } = {
  message: '',
  requestedSchema: {
    type: 'object',
    properties: {
      decision: {
        type: 'string',
        title: 'Decision',
        description: 'approve: this call only; approve_for_conversation: every call of this tool from now on',
        enum: ['approve', 'approve_for_conversation', 'deny'],
      },
      reason: { type: 'string', title: 'Reason', description: 'Why (told to the caller when you deny)' },
    },
    required: ['decision'],
  },
};

/**
 * An asker that puts the approval to the MCP client's user with `elicitation/create` (a form: approve, approve for
 * the conversation, deny with a reason). Declining or dismissing the form denies the call. When the client cannot
 * be asked (the request fails), null: the approval stays pending for `gdn approvals`.
 */
export function elicitApproval(options: {
  sendRequest: SendRequest;
  clientName: string;
  logger: Console;
}): ApprovalAsker {
  const by = `mcp-client:${options.clientName}`;
  return { reach: 'elicitation', ask: askMcpClient };
  async function askMcpClient(record: ApprovalRecord, signal: AbortSignal): Promise<ApprovalAnswer | null> {
    const message = [
      `Allow ${record.toolName} (${record.category})?`,
      `arguments: ${shortArgs(record.args, 400)}`,
      `why asked: ${record.rule}`,
    ].join('\n');
    try {
      const result = await options.sendRequest(
        { method: 'elicitation/create', params: { ...requestedSchema, message } },
        ElicitResultSchema,
        // The client may take as long as the approval lives.
        { signal, timeout: Math.max(1_000, record.expiresAt - Date.now()) },
      );
      if (result.action === 'decline') return { action: 'deny', reason: 'declined in the MCP client', by };
      if (result.action === 'cancel') return { action: 'deny', reason: 'dismissed in the MCP client', by };
      const decision = result.content?.decision;
      const reason = typeof result.content?.reason === 'string' ? result.content.reason.trim() : '';
      if (decision === 'approve') return { action: 'approve', scope: 'once', by };
      if (decision === 'approve_for_conversation') return { action: 'approve', scope: 'conversation', by };
      return { action: 'deny', reason: reason || 'denied in the MCP client', by };
    } catch (thrown) {
      if (!signal.aborted) {
        options.logger.error(
          `gdn mcp serve: could not ask the MCP client about ${record.id} (${(thrown as Error)?.message ?? thrown}); answer it with 'gdn approvals'`,
        );
      }
      return null;
    }
  }
}

/**
 * For a client that cannot be asked (no elicitation) but follows the call's progress (a progressToken): it is told
 * the call waits for a person, and how to answer, in a progress notification. Without it, all such a client sees is
 * a call that does not end (until its own timeout, often a minute, long before the approval's). The approval stays
 * for `gdn approvals`.
 */
export function tellWaitingApproval(options: {
  notify: (message: string) => Promise<void>;
  logger: Console;
}): ApprovalAsker {
  return {
    reach: 'progress',
    async ask(record) {
      await options
        .notify(
          `waiting for approval ${record.id}: ${record.toolName} (${record.rule}); answer with 'gdn approvals approve ${record.id}' or 'gdn approvals deny ${record.id} --reason TEXT'`,
        )
        .catch((thrown) =>
          options.logger.error(
            `gdn mcp serve: could not tell the MCP client about ${record.id} (${(thrown as Error)?.message ?? thrown}); answer it with 'gdn approvals'`,
          ),
        );
      return null;
    },
  };
}
