import { postJson } from './api.ts';
import { formatDuration, h, shownValue } from './dom.ts';
import type { Approval } from './types.ts';

/** Approve (once or for the conversation) or deny with a reason, through POST /v1/approvals/ID/… */
export function approvalActions(approval: Approval, onDone: (message: string) => void, onError: (e: unknown) => void) {
  const reasonId = `reason-${approval.id}`;
  const reason = h('input', {
    id: reasonId,
    type: 'text',
    placeholder: 'optional',
    autocomplete: 'off',
  }) as HTMLInputElement;
  const act = async (action: 'approve' | 'deny', scope?: 'once' | 'conversation') => {
    try {
      const body =
        action === 'approve'
          ? { scope, by: 'console' }
          : { by: 'console', ...(reason.value ? { reason: reason.value } : {}) };
      await postJson(`/v1/approvals/${encodeURIComponent(approval.id)}/${action}`, body);
      onDone(`${approval.toolName}: ${action === 'approve' ? 'approved' : 'denied'}.`);
    } catch (thrown) {
      onError(thrown);
    }
  };
  return h(
    'div',
    { class: 'approval', role: 'group', 'aria-label': `Approval for ${approval.toolName}` },
    h(
      'p',
      {},
      h('strong', {}, approval.toolName),
      ` (${approval.category}) asks: rule `,
      h('code', {}, approval.rule),
      ` · waiting ${formatDuration(Date.now() - approval.createdAt)}`,
    ),
    h('pre', { class: 'args' }, shownValue(approval.args, 1500)),
    approval.argsCutChars
      ? h(
          'p',
          { class: 'muted' },
          `The arguments go on for ${approval.argsCutChars} characters more than the console was sent: see them whole with `,
          h('code', {}, 'gdn approvals list --json'),
          ' before answering.',
        )
      : '',
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'approve', onclick: () => act('approve', 'once') }, 'Approve'),
      h('button', { type: 'button', onclick: () => act('approve', 'conversation') }, 'Approve for this conversation'),
      h('label', { for: reasonId }, 'Reason'),
      reason,
      h('button', { type: 'button', class: 'deny', onclick: () => act('deny') }, 'Deny'),
    ),
  );
}
