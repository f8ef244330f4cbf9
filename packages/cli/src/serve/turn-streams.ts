import type { AgentNotification } from '@goondan/core';

type Listener = (text: string) => void;

/**
 * Routes the text deltas agent processes report to whoever follows a turn. A process notifies `turn.start` with
 * the event id and then its text deltas without it; a process runs one turn at a time, so the deltas of an
 * instance belong to the event whose turn started last there.
 */
export class TurnStreams {
  private readonly running = new Map<string, string>();
  private readonly listeners = new Map<string, Listener>();

  /** Feed every notification of the Orchestrator here. */
  notify({ agent, instanceKey, event }: AgentNotification): void {
    const address = `${agent}/${instanceKey}`;
    const data = (event.data ?? {}) as { eventId?: string; text?: string };
    if (event.type === 'runtime.turn.start') this.running.set(address, String(data.eventId));
    else if (event.type === 'runtime.turn.end') this.running.delete(address);
    else if (event.type === 'runtime.text.delta') {
      const eventId = this.running.get(address);
      const listener = eventId === undefined ? undefined : this.listeners.get(eventId);
      try {
        listener?.(String(data.text ?? ''));
      } catch {
        // A follower cannot break routing (STYLE habit 8).
      }
    }
  }

  /** Calls `listener` with the text of the turn of event `eventId` as it arrives; returns the unsubscribe. */
  follow(eventId: string, listener: Listener): () => void {
    this.listeners.set(eventId, listener);
    return () => this.listeners.delete(eventId);
  }
}
