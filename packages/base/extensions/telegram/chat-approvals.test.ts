import { describe, expect, test } from 'bun:test';
import type { ApprovalAnswer } from '@goondan/core';
import { pendingApproval } from './__fixtures__/pending-approval.ts';
import { ChatApprovals } from './chat-approvals.ts';

const record = pendingApproval({
  id: 'apr_1',
  agent: 'helper',
  instanceKey: 'telegram-1',
  args: {},
  expiresAt: Date.now() + 3_600_000,
});

function setup(running = true, now = Date.now) {
  const answered: { agent: string; instanceKey: string; id: string; answer: ApprovalAnswer }[] = [];
  const sent: { chatId: number; text: string }[] = [];
  const edits: { chatId: number; messageId: number; text: string }[] = [];
  const approvals = new ChatApprovals({
    instanceOf: (chatId) => ({ agent: 'assistant', instanceKey: `telegram-${chatId}` }),
    answer: async (options) => {
      answered.push(options);
      return running;
    },
    send: async (chatId, text) => {
      sent.push({ chatId, text });
      return { message_id: 50 + sent.length };
    },
    edit: async (chatId, messageId, text) => {
      edits.push({ chatId, messageId, text });
    },
    now,
  });
  return { approvals, answered, sent, edits };
}

describe('ChatApprovals', () => {
  test('a press answers the shown approval of its own chat, in the instance that raised it', async () => {
    const { approvals, answered } = setup();
    approvals.show(record, 1);
    expect(approvals.waitingIn(1)).toBe(true);
    expect(await approvals.press({ chatId: 1, data: 'apr:c:apr_1', by: 'telegram:ada' })).toEqual({
      text: 'Approved for this conversation',
      clearButtons: false,
    });
    expect(answered).toEqual([
      {
        agent: 'helper',
        instanceKey: 'telegram-1',
        id: 'apr_1',
        answer: { action: 'approve', scope: 'conversation', by: 'telegram:ada' },
      },
    ]);
  });

  test('a press in another chat answers nothing', async () => {
    const { approvals, answered } = setup();
    approvals.show(record, 1);
    expect((await approvals.press({ chatId: 2, data: 'apr:o:apr_1', by: 'x' }))?.text).toBe(
      'This approval is no longer waiting.',
    );
    expect(answered).toEqual([]);
  });

  test('a press for an approval this run never showed goes to the chat instance; refused, its buttons go', async () => {
    const { approvals, answered } = setup(false);
    expect(await approvals.press({ chatId: 3, data: 'apr:d:apr_9', by: 'x' })).toEqual({
      text: 'This approval is no longer waiting.',
      clearButtons: true,
    });
    expect(answered[0]).toMatchObject({ agent: 'assistant', instanceKey: 'telegram-3', id: 'apr_9' });
  });

  test('a turn that ends with an approval still shown closes it as cancelled', async () => {
    const { approvals, edits } = setup();
    approvals.show(record, 1);
    const closing = approvals.closeChat(1);
    expect(approvals.waitingIn(1)).toBe(false);
    await closing;
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ chatId: 1, messageId: 51 });
    expect(edits[0]!.text).toEndWith('No longer waiting: cancelled.');
  });

  test('a second press (another button, another person) answers nothing and says what the first one did', async () => {
    const { approvals, answered } = setup();
    approvals.show(record, 1);
    const [first, second] = await Promise.all([
      approvals.press({ chatId: 1, data: 'apr:o:apr_1', by: 'telegram:ada' }),
      approvals.press({ chatId: 1, data: 'apr:d:apr_1', by: 'telegram:bob' }),
    ]);
    expect(first).toEqual({ text: 'Approved once', clearButtons: false });
    expect(second).toEqual({ text: 'Already answered: Approved once by telegram:ada.', clearButtons: false });
    expect(answered.map((entry) => entry.answer.action)).toEqual(['approve']);
  });

  test('a press after the approval expired answers nothing', async () => {
    const { approvals, answered } = setup(true, () => record.expiresAt + 1);
    approvals.show(record, 1);
    expect(await approvals.press({ chatId: 1, data: 'apr:o:apr_1', by: 'telegram:ada' })).toEqual({
      text: 'This approval has expired; nothing was answered.',
      clearButtons: false,
    });
    expect(answered).toEqual([]);
  });

  test('a press the instance could not take leaves the approval open to the next press', async () => {
    const { approvals, answered } = setup(false);
    approvals.show(record, 1);
    expect((await approvals.press({ chatId: 1, data: 'apr:o:apr_1', by: 'a' }))?.text).toBe(
      'This approval is no longer waiting.',
    );
    expect((await approvals.press({ chatId: 1, data: 'apr:o:apr_1', by: 'a' }))?.text).toBe(
      'This approval is no longer waiting.',
    );
    expect(answered).toHaveLength(2);
  });
});
