import type { AgentNotification } from '@goondan/core';

type Listener = (text: string) => void;

/** What separates the texts of two steps of one turn in a stream (the model wrote, called tools, wrote again). */
export const STEP_SEPARATOR = '\n\n';

/**
 * Routes the text deltas agent processes report to whoever follows a turn. A process notifies `turn.start` with
 * the event id and then its text deltas without it; a process runs one turn at a time, so the deltas of an
 * instance belong to the event whose turn started last there. The texts of successive steps (a tool call between
 * them) are separated by a blank line, as `gdn run` prints them, not run together.
 */
export class TurnStreams {
  private readonly running = new Map<string, { eventId: string; wrote: boolean; stepEnded: boolean }>();
  private readonly listeners = new Map<string, Listener>();
  private readonly starts = new Map<string, () => void>();

  /** Feed every notification of the Orchestrator here. */
  notify({ agent, instanceKey, event }: AgentNotification): void {
    const address = `${agent}/${instanceKey}`;
    const data = (event.data ?? {}) as { eventId?: string; text?: string };
    if (event.type === 'runtime.turn.start') {
      this.running.set(address, { eventId: String(data.eventId), wrote: false, stepEnded: false });
      try {
        this.starts.get(String(data.eventId))?.();
      } catch {
        // A follower cannot break routing (STYLE habit 8).
      }
    } else if (event.type === 'runtime.turn.end') this.running.delete(address);
    else if (event.type === 'runtime.tool.start') {
      const turn = this.running.get(address);
      if (turn) turn.stepEnded = true;
    } else if (event.type === 'runtime.text.delta') {
      const turn = this.running.get(address);
      const listener = turn === undefined ? undefined : this.listeners.get(turn.eventId);
      const text = String(data.text ?? '');
      if (!turn || !listener || text.length === 0) return;
      const separator = turn.wrote && turn.stepEnded ? STEP_SEPARATOR : '';
      turn.wrote = true;
      turn.stepEnded = false;
      try {
        listener(`${separator}${text}`);
      } catch {
        // A follower cannot break routing (STYLE habit 8).
      }
    }
  }

  /** Turns started and not ended yet, one at most per instance (what /healthz reports while the host drains). */
  get runningTurns(): number {
    return this.running.size;
  }

  /** The process of an instance ended (stopped, crashed, killed): a turn it was running will send no end. */
  processEnded(agent: string, instanceKey: string): void {
    this.running.delete(`${agent}/${instanceKey}`);
  }

  /**
   * Calls `listener` with the text of the turn of event `eventId` as it arrives, and `onStart` when that turn starts
   * in its agent process; returns the unsubscribe.
   */
  follow(eventId: string, listener: Listener, onStart?: () => void): () => void {
    this.listeners.set(eventId, listener);
    if (onStart) this.starts.set(eventId, onStart);
    return () => {
      this.listeners.delete(eventId);
      this.starts.delete(eventId);
    };
  }
}
