import type { ApprovalAnswer, ApprovalRecord } from '@goondan/core';
import { approvalKeyboard, approvalOutcome, approvalText, parseApprovalCallback } from './approval-buttons.ts';

interface ShownApproval {
  chatId: number;
  record: ApprovalRecord;
  /** The id of the message with the buttons, once sent (null: it could not be sent). */
  message: Promise<number | null>;
  /** What a press in this run answered ("Approved once by telegram:ada"), while the instance has not said it ended. */
  answered?: string;
}

/** What a button press comes to: the text of the callback answer, and whether to take the buttons away. */
export interface PressOutcome {
  text: string;
  clearButtons: boolean;
}

/** An agent instance, and where an approval waits. */
export interface ApprovalTarget {
  agent: string;
  instanceKey: string;
}

/**
 * The approvals a Telegram chat has shown, by approval id: each is a message with buttons in one chat, edited with
 * the outcome once the approval ends (answered here or elsewhere, expired, or its turn gone). Used by
 * Extension/telegram in the host and by Connector/telegram in its own process (the answer then goes over IPC).
 */
export class ChatApprovals {
  private readonly shown = new Map<string, ShownApproval>();

  constructor(
    private readonly options: {
      /** The instance a chat talks to: where a press for an approval not shown by this run goes (null: nowhere). */
      instanceOf: (chatId: number) => ApprovalTarget | null;
      /** Hands a person's answer to the instance waiting; false when it is not waiting (any more). */
      answer: (options: ApprovalTarget & { id: string; answer: ApprovalAnswer }) => boolean | Promise<boolean>;
      send: (chatId: number, text: string, extra: object) => Promise<{ message_id: number } | null>;
      edit: (chatId: number, messageId: number, text: string) => Promise<void>;
      /** The clock expiries are read against (default Date.now). */
      now?: () => number;
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
  async press(options: { chatId: number; data: string; by: string }): Promise<PressOutcome | null> {
    const parsed = parseApprovalCallback(options.data, options.by);
    if (!parsed) return null;
    const entry = this.shown.get(parsed.id);
    if (entry && entry.chatId === options.chatId) {
      // One answer per approval: a second press (or one after expiry) must not be told it decided anything.
      if (entry.answered !== undefined) return { text: `Already answered: ${entry.answered}.`, clearButtons: false };
      if (entry.record.expiresAt <= (this.options.now ?? Date.now)()) {
        return { text: 'This approval has expired; nothing was answered.', clearButtons: false };
      }
      entry.answered = `${parsed.said} by ${options.by}`;
    }
    const target = entry
      ? entry.chatId === options.chatId
        ? entry.record
        : null
      : this.options.instanceOf(options.chatId);
    const answered =
      target !== null &&
      (await this.options.answer({
        agent: target.agent,
        instanceKey: target.instanceKey,
        id: parsed.id,
        answer: parsed.answer,
      }));
    if (answered) return { text: parsed.said, clearButtons: false };
    if (entry && target !== null) entry.answered = undefined;
    return { text: 'This approval is no longer waiting.', clearButtons: entry === undefined };
  }
}
