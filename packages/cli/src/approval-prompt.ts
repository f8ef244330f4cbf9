import type { ApprovalAnswer, ApprovalRecord } from '@goondan/core';
import { paint, printable } from './terminal.ts';
import { shortArgs } from './tool-call-printer.ts';

/** The words a person may answer an approval with, shown under every request. */
export const APPROVAL_CHOICES = 'y = approve once · a = approve for this conversation · n [reason] = deny';

/**
 * A pending approval as the terminal shows it (several lines, no trailing newline). Its fields are stored text (the
 * bundle's rule, a tool's name, maybe given by an MCP server): shown without their control characters.
 */
export function describeApproval(record: ApprovalRecord, color: boolean, options: { choices?: boolean } = {}): string {
  const who = printable(`${record.agent}/${record.instanceKey}`);
  const seconds = Math.max(0, Math.round((record.expiresAt - Date.now()) / 1000));
  return [
    `${paint('? approval needed', 'yellow', color)} ${paint(record.id, 'dim', color)} ${who} wants to call ${paint(printable(record.toolName), 'bold', color)} (${printable(record.category)})`,
    `  arguments: ${shortArgs(record.args, 400)}`,
    `  why: ${printable(record.rule)}; expires in ${seconds}s`,
    ...(options.choices === false ? [] : [`  ${APPROVAL_CHOICES}`]),
  ].join('\n');
}

/** How an approval ended, in one line. */
export function describeResolution(record: ApprovalRecord, color: boolean): string {
  const text =
    record.status === 'approved'
      ? paint(`approved${record.scope === 'conversation' ? ' for this conversation' : ''}`, 'green', color)
      : paint(record.status, record.status === 'denied' ? 'red' : 'yellow', color);
  // A person's words, maybe typed through the HTTP API or the console: shown, never obeyed by the terminal.
  const by = record.decidedBy ? ` by ${printable(record.decidedBy)}` : '';
  const reason = record.reason ? ` (${printable(record.reason)})` : '';
  return `  ${paint('↳', 'dim', color)} ${printable(record.toolName)} ${text}${by}${reason}`;
}

/**
 * Reads an answer typed at an approval prompt: `y`/`yes` approve once, `a`/`always` approve for the conversation,
 * `n`/`no`/`deny` with an optional reason after it. Null for anything else (the prompt is shown again).
 */
export function parseApprovalAnswer(line: string, by = 'user'): ApprovalAnswer | null {
  const text = line.trim();
  const [word = '', ...rest] = text.split(/\s+/);
  const reason = rest.join(' ').trim();
  switch (word.toLowerCase()) {
    case 'y':
    case 'yes':
      return { action: 'approve', scope: 'once', by };
    case 'a':
    case 'always':
      return { action: 'approve', scope: 'conversation', by };
    case 'n':
    case 'no':
    case 'deny':
      return { action: 'deny', by, ...(reason ? { reason } : {}) };
    default:
      return null;
  }
}

/**
 * How long an approval question waits before it is shown on a terminal: lines typed before it (while the turn kept
 * the process busy, or during a whole `gdn run`) are read in that time and are not taken as its answer, so nobody
 * approves a call they have not seen.
 */
const QUESTION_DELAY_MS = 150;

/**
 * Runs `ask` once what was typed before the question has been read: QUESTION_DELAY_MS later, then after the input
 * read by then too (the timer may fire first when the process was not scheduled for a while).
 */
export function afterTypedAhead(ask: () => void): void {
  setTimeout(() => setImmediate(ask), QUESTION_DELAY_MS);
}

/**
 * Approvals waiting for a person at this terminal, asked one at a time in arrival order: `show` runs whenever an
 * approval comes to the head of the queue.
 */
export class ApprovalQueue {
  private readonly waiting: ApprovalRecord[] = [];

  constructor(private readonly show: (head: ApprovalRecord) => void) {}

  get head(): ApprovalRecord | undefined {
    return this.waiting[0];
  }

  get size(): number {
    return this.waiting.length;
  }

  /** Every approval waiting here, the head first. */
  get all(): readonly ApprovalRecord[] {
    return [...this.waiting];
  }

  /** A new request (one already waiting is ignored). */
  add(record: ApprovalRecord): void {
    if (this.waiting.some((waiting) => waiting.id === record.id)) return;
    this.waiting.push(record);
    if (this.waiting.length === 1) this.show(record);
  }

  /** The head was answered here: it leaves, and the next is shown. */
  take(): ApprovalRecord | undefined {
    const taken = this.waiting.shift();
    if (this.waiting[0]) this.show(this.waiting[0]);
    return taken;
  }

  /** An approval ended elsewhere (answered, expired, cancelled): it leaves; the next is shown if it was the head. */
  remove(id: string): void {
    const index = this.waiting.findIndex((waiting) => waiting.id === id);
    if (index < 0) return;
    this.waiting.splice(index, 1);
    if (index === 0 && this.waiting[0]) this.show(this.waiting[0]);
  }
}
