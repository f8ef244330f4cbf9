import type { AgentEvent } from '../agent/agent-event.ts';
import { PausableTimer } from './pausable-timer.ts';
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
  timer?: PausableTimer;
  /** Its timeout is paused: the callee (or one it waits on) waits for a person's approval. */
  held: boolean;
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
    const entry: Entry = { ...request, held: false };
    if (options.timeoutMs > 0) {
      entry.timer = new PausableTimer(() => {
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
    entry.timer?.clear();
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

  /**
   * Pauses the timeouts of every request that waits, directly or down a chain of requests, on an address in
   * `waiting` (agents whose tool calls wait for approval), and resumes the others. Returns the requests whose
   * state changed, so their callers can be told.
   */
  holdWaitingOn(waiting: ReadonlySet<string>): { request: PendingRequest; held: boolean }[] {
    const blocked = new Set(waiting);
    const held = new Set<string>();
    for (let grew = true; grew; ) {
      grew = false;
      for (const entry of this.entries.values()) {
        if (held.has(entry.correlationId) || !blocked.has(entry.calleeAddress)) continue;
        held.add(entry.correlationId);
        blocked.add(entry.callerAddress);
        grew = true;
      }
    }
    const changed: { request: PendingRequest; held: boolean }[] = [];
    for (const entry of this.entries.values()) {
      const hold = held.has(entry.correlationId);
      if (hold === entry.held) continue;
      entry.held = hold;
      if (hold) entry.timer?.pause();
      else entry.timer?.resume();
      changed.push({ request: entry, held: hold });
    }
    return changed;
  }

  get size(): number {
    return this.entries.size;
  }
}
