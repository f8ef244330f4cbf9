import type { AgentEvent } from '../agent/agent-event.ts';
import { WaitForGraph } from './wait-for-graph.ts';

/** A request routed to a callee and not answered yet. */
export interface PendingRequest {
  correlationId: string;
  eventId: string;
  callerAddress: string;
  calleeAddress: string;
  /** The caller's turn waits on it: an edge in the wait-for graph. */
  blocking: boolean;
  /** Hands the answer (an `agent.reply` event) to the caller. */
  answer: (reply: AgentEvent) => void;
}

interface Entry extends PendingRequest {
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Outstanding requests by correlationId, with their timers and the wait-for graph of the blocking ones (spec
 * v2.0-b §11.1 step 5: replies are matched by correlationId).
 */
export class PendingRequests {
  private readonly entries = new Map<string, Entry>();
  private readonly graph = new WaitForGraph();

  /**
   * Registers the request, or returns the cycle it would close (then nothing is registered). `onTimeout` runs
   * once after `timeoutMs` (0 = no timeout) if it is still pending.
   */
  open(request: PendingRequest, options: { timeoutMs: number; onTimeout: (request: PendingRequest) => void }) {
    if (request.blocking) {
      const cycle = this.graph.cycleThrough(request.callerAddress, request.calleeAddress);
      if (cycle) return { cycle };
      this.graph.add(request.callerAddress, request.calleeAddress);
    }
    const entry: Entry = { ...request };
    if (options.timeoutMs > 0) {
      entry.timer = setTimeout(() => {
        if (this.take(request.correlationId)) options.onTimeout(request);
      }, options.timeoutMs);
    }
    this.entries.set(request.correlationId, entry);
    return { cycle: null };
  }

  /** Removes and returns the request (its timer and wait edge go with it). */
  take(correlationId: string): PendingRequest | undefined {
    const entry = this.entries.get(correlationId);
    if (!entry) return undefined;
    this.entries.delete(correlationId);
    clearTimeout(entry.timer);
    if (entry.blocking) this.graph.remove(entry.callerAddress, entry.calleeAddress);
    return entry;
  }

  get(correlationId: string): PendingRequest | undefined {
    return this.entries.get(correlationId);
  }

  /** Requests waiting on `address` (it crashed: they fail) or made by it (it crashed: they are forgotten). */
  involving(address: string): { asCallee: PendingRequest[]; asCaller: PendingRequest[] } {
    const asCallee: PendingRequest[] = [];
    const asCaller: PendingRequest[] = [];
    for (const entry of this.entries.values()) {
      if (entry.calleeAddress === address) asCallee.push(entry);
      else if (entry.callerAddress === address) asCaller.push(entry);
    }
    return { asCallee, asCaller };
  }

  get size(): number {
    return this.entries.size;
  }
}
