import type { ApprovalRecord } from '@goondan/core';
import { approvalKeyboard, approvalOutcome, approvalText, parseApprovalCallback } from './approval-buttons.ts';
import type { ChannelOrchestrator } from './channel-types.ts';

interface ShownApproval {
  chatId: number;
  record: ApprovalRecord;
  /** The id of the message with the buttons, once sent (null: it could not be sent). */
  message: Promise<number | null>;
}

/** What a button press comes to: the text of the callback answer, and whether to take the buttons away. */
export interface PressOutcome {
  text: string;
  clearButtons: boolean;
}

/**
 * The approvals a Telegram channel has shown, by approval id: each is a message with buttons in one chat, edited
 * with the outcome once the approval ends (answered here or elsewhere, expired, or its turn gone).
 */
export class ChatApprovals {
  private readonly shown = new Map<string, ShownApproval>();

  constructor(
    private readonly options: {
      /** The agent that answers the chat: where a press for an approval not shown by this run goes. */
      agent: string;
      instanceKeyOf: (chatId: number) => string;
      orchestrator: ChannelOrchestrator;
      send: (chatId: number, text: string, extra: object) => Promise<{ message_id: number } | null>;
      edit: (chatId: number, messageId: number, text: string) => Promise<void>;
    },
  ) {}

  /** True while an approval waits in the chat (its turn is not typing). */
  waitingIn(chatId: number): boolean {
    return [...this.shown.values()].some((entry) => entry.chatId === chatId);
  }

  /** Shows a pending approval in the chat, with buttons (or the command to answer it, if its id is too long). */
  show(record: ApprovalRecord, chatId: number): void {
    if (record.status !== 'pending' || this.shown.has(record.id)) return;
    const keyboard = approvalKeyboard(record.id);
    const text = keyboard
      ? approvalText(record)
      : `${approvalText(record)}\nAnswer with: gdn approvals approve ${record.id}`;
    const message = this.options
      .send(chatId, text, keyboard ? { reply_markup: keyboard } : {})
      .then((sent) => sent?.message_id ?? null);
    this.shown.set(record.id, { chatId, record, message });
  }

  /** The approval ended: its message says how, without buttons. */
  async close(record: ApprovalRecord): Promise<void> {
    const entry = this.shown.get(record.id);
    if (!entry) return;
    this.shown.delete(record.id);
    const messageId = await entry.message;
    if (messageId === null) return;
    await this.options.edit(entry.chatId, messageId, `${approvalText(entry.record)}\n\n${approvalOutcome(record)}`);
  }

  /** The chat's turn ended: an approval still shown waits for nothing (its agent process crashed). */
  async closeChat(chatId: number): Promise<void> {
    const stale = [...this.shown.values()].filter((entry) => entry.chatId === chatId);
    await Promise.all(stale.map((entry) => this.close({ ...entry.record, status: 'cancelled' })));
  }

  /**
   * A button pressed in `chatId`. It answers only an approval of that chat; one not shown by this run (the host
   * restarted) goes to the chat's instance, which knows only its own approvals. Null: not an approval button.
   */
  press(options: { chatId: number; data: string; by: string }): PressOutcome | null {
    const parsed = parseApprovalCallback(options.data, options.by);
    if (!parsed) return null;
    const entry = this.shown.get(parsed.id);
    const answered =
      (entry === undefined || entry.chatId === options.chatId) &&
      this.options.orchestrator.answerApproval({
        agent: entry?.record.agent ?? this.options.agent,
        instanceKey: entry?.record.instanceKey ?? this.options.instanceKeyOf(options.chatId),
        id: parsed.id,
        answer: parsed.answer,
      });
    if (answered) return { text: parsed.said, clearButtons: false };
    return { text: 'This approval is no longer waiting.', clearButtons: entry === undefined };
  }
}
