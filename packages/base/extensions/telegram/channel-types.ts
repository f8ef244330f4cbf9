import type { AgentEvent, AgentNotification, ApprovalAnswer, TurnResult } from '@goondan/core';

/**
 * What a channel needs of the host's Orchestrator (structurally, so tests and hosts can pass it as it is):
 * a turn of an agent instance, and a person's answer to an approval.
 */
export interface ChannelOrchestrator {
  request(options: {
    /** The event's id (default a new one): a caller that follows the turn's notifications knows it beforehand. */
    id?: string;
    input: string;
    type?: string;
    target?: string;
    instanceKey?: string;
    source?: AgentEvent['source'];
    data?: AgentEvent['data'];
    /** Who the turn acts for (spec v1 §12.5.3). */
    auth?: AgentEvent['auth'];
  }): Promise<TurnResult>;
  answerApproval(options: { agent: string; instanceKey: string; id: string; answer: ApprovalAnswer }): boolean;
}

export type ChannelLogger = Pick<Console, 'info' | 'warn' | 'error'>;

/** A running channel. The host passes it every runtime notification of its Orchestrator (approvals surface so). */
export interface Channel {
  kind: 'telegram';
  agent: string;
  /** Chats this channel talks to (the instance of chat N is `telegram-N`). */
  allowedChatIds: readonly number[];
  notify(notification: AgentNotification): void;
  /**
   * Stops taking updates (the long poll ends). Turns already running still get their reply sent when they end,
   * so call it before the Orchestrator's drain.
   */
  stop(): Promise<void>;
}
