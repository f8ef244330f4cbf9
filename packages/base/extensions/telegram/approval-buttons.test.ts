import { describe, expect, test } from 'bun:test';
import { pendingApproval } from './__fixtures__/pending-approval.ts';
import { approvalKeyboard, approvalOutcome, approvalText, parseApprovalCallback } from './approval-buttons.ts';

const record = pendingApproval();

describe('approval buttons', () => {
  test('each button answers the approval it was shown under', () => {
    const keyboard = approvalKeyboard(record.id)!;
    const [once, conversation, deny] = keyboard.inline_keyboard.flat().map(({ callback_data }) => callback_data);
    expect(parseApprovalCallback(once!, 'telegram:ada')).toEqual({
      id: record.id,
      answer: { action: 'approve', scope: 'once', by: 'telegram:ada' },
      said: 'Approved once',
    });
    expect(parseApprovalCallback(conversation!, 'x')?.answer.scope).toBe('conversation');
    expect(parseApprovalCallback(deny!, 'x')?.answer).toEqual({ action: 'deny', by: 'x' });
  });

  test('ignores data that is not an approval answer', () => {
    expect(parseApprovalCallback('hello', 'x')).toBeNull();
    expect(parseApprovalCallback('apr:z:apr_1', 'x')).toBeNull();
  });

  test('shows no buttons for an id too long for callback_data', () => {
    expect(approvalKeyboard('a'.repeat(80))).toBeNull();
  });

  test('says what is asked, and how it ended', () => {
    expect(approvalText(record, 0)).toContain('assistant wants to call bash__exec (restricted)');
    expect(approvalText(record, 0)).toContain('expires in 60s');
    expect(approvalOutcome({ ...record, status: 'approved', scope: 'once', decidedBy: 'telegram:ada' })).toBe(
      'Approved once by telegram:ada.',
    );
    expect(approvalOutcome({ ...record, status: 'expired' })).toBe('No longer waiting: expired.');
  });
});
