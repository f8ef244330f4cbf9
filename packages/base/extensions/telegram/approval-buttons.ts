import type { ApprovalAnswer, ApprovalRecord } from '@goondan/core';

/** Telegram's limit on a button's callback_data, in bytes. */
const CALLBACK_DATA_LIMIT = 64;
const ARGUMENTS_SHOWN = 600;

const choices = {
  o: { text: 'Approve once', answer: { action: 'approve', scope: 'once' }, said: 'Approved once' },
  c: {
    text: 'Approve for this chat',
    answer: { action: 'approve', scope: 'conversation' },
    said: 'Approved for this conversation',
  },
  d: { text: 'Deny', answer: { action: 'deny' }, said: 'Denied' },
} as const;

type Choice = keyof typeof choices;

/** The plain text of an approval request as the chat shows it. */
export function approvalText(record: ApprovalRecord, now = Date.now()): string {
  let args = JSON.stringify(record.args) ?? 'null';
  if (args.length > ARGUMENTS_SHOWN) args = `${args.slice(0, ARGUMENTS_SHOWN)}…`;
  const seconds = Math.max(0, Math.round((record.expiresAt - now) / 1000));
  return [
    `Approval needed: ${record.agent} wants to call ${record.toolName} (${record.category}).`,
    `Arguments: ${args}`,
    `Why: ${record.rule}; expires in ${seconds}s.`,
  ].join('\n');
}

/** The inline keyboard under an approval request; null when the id does not fit in callback_data. */
export function approvalKeyboard(id: string): { inline_keyboard: { text: string; callback_data: string }[][] } | null {
  const data = (choice: Choice) => `apr:${choice}:${id}`;
  if (Buffer.byteLength(data('o')) > CALLBACK_DATA_LIMIT) return null;
  return {
    inline_keyboard: [
      [
        { text: choices.o.text, callback_data: data('o') },
        { text: choices.c.text, callback_data: data('c') },
      ],
      [{ text: choices.d.text, callback_data: data('d') }],
    ],
  };
}

/** Reads a button press: the approval id, the answer it gives, and what to tell the person. Null: not ours. */
export function parseApprovalCallback(
  data: string,
  by: string,
): { id: string; answer: ApprovalAnswer; said: string } | null {
  const match = /^apr:([ocd]):(.+)$/.exec(data);
  if (!match) return null;
  const choice = choices[match[1] as Choice];
  return { id: match[2]!, answer: { ...choice.answer, by }, said: choice.said };
}

/** One line saying how an approval ended, appended to its message once the buttons go. */
export function approvalOutcome(record: ApprovalRecord): string {
  const by = record.decidedBy ? ` by ${record.decidedBy}` : '';
  const reason = record.reason ? ` (${record.reason})` : '';
  if (record.status === 'approved') {
    return `${record.scope === 'conversation' ? choices.c.said : choices.o.said}${by}.`;
  }
  if (record.status === 'denied') return `Denied${by}${reason}.`;
  return `No longer waiting: ${record.status}${reason}.`;
}
