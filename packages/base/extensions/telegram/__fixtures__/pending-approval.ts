import type { ApprovalRecord } from '@goondan/core';

/** A pending approval of `bash__exec` raised in a Telegram chat, with `overrides` on top. */
export function pendingApproval(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: 'apr_abc_1',
    agent: 'assistant',
    instanceKey: 'telegram-42',
    turnId: 't',
    traceId: 'tr',
    toolCallId: 'c',
    toolName: 'bash__exec',
    category: 'restricted',
    args: { command: 'ls' },
    rule: 'category restricted: ask',
    source: { kind: 'user', name: 'telegram' },
    status: 'pending',
    scope: null,
    decidedBy: null,
    reason: null,
    createdAt: 0,
    expiresAt: 60_000,
    decidedAt: null,
    ...overrides,
  };
}
