import {
  type AgentEvent,
  openScheduleStore,
  orchestratorDeliver,
  Scheduler,
  type ScheduleTarget,
  scheduleStorePath,
} from '@goondan/core';
import type { AgentSession } from './open-session.ts';
import { printable } from './terminal.ts';

/** A chat turn the scheduler wants run: settle it once the turn has taken the event (or failed to). */
export interface ScheduledTurn {
  event: AgentEvent;
  settle: (error?: unknown) => void;
}

/** A chat turn can outlast the default 30 s: delivery is "the turn took it", so the wait is long. */
const CHAT_DELIVER_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/**
 * The bundle's scheduler inside `gdn chat` (docs/scheduler.md), so a person trying an alarm at the terminal
 * sees it fire: firings for the chat's own instance become turns of the chat (`runTurn` queues them beside
 * typed lines and prints them like any turn); in a swarm, firings for the other agents go to the Orchestrator.
 * Schedules for instances this chat does not run stay in the store for `gdn serve`.
 */
export function startChatScheduler(options: {
  session: AgentSession;
  runTurn: (turn: ScheduledTurn) => void;
  warn: (line: string) => void;
}): { stop(): Promise<void> } {
  const { session } = options;
  const store = openScheduleStore({
    path: scheduleStorePath({ rootDir: session.bundle.rootDir }),
    onReopened: (path) =>
      options.warn(
        `${path} was deleted or replaced while the chat ran; opened it again at its path (the schedules it held are gone)`,
      ),
  });
  const own = (target: ScheduleTarget) =>
    target.agent === session.agentName && target.instanceKey === session.instanceKey;
  const orchestrator = session.orchestrator;
  const viaOrchestrator = orchestrator ? orchestratorDeliver(orchestrator) : null;
  // Firings handed to the chat and not yet run. The chat runs none once it is leaving (input ended at an approval
  // question, /exit), so stop() fails them: waiting for them made the scheduler's stop, and so gdn chat, hang for
  // the 24 h delivery timeout. A failed one stays undelivered in the store for the next gdn chat or gdn serve.
  const waiting = new Set<(error: Error) => void>();
  let stopping = false;
  const ended = () => new Error('the chat ended before the turn ran');
  const scheduler = new Scheduler({
    store,
    logger: { warn: options.warn },
    deliverTimeoutMs: CHAT_DELIVER_TIMEOUT_MS,
    accepts: (target) => own(target) || (orchestrator?.swarm.agents.includes(target.agent) ?? false),
    deliver: (target, event) => {
      if (!own(target) && viaOrchestrator) return viaOrchestrator(target, event);
      if (stopping) return Promise.reject(ended());
      return new Promise<void>((resolve, reject) => {
        const fail = (error: Error) => reject(error);
        waiting.add(fail);
        options.runTurn({
          event,
          settle: (error) => {
            waiting.delete(fail);
            if (error === undefined) resolve();
            else reject(error);
          },
        });
      });
    },
  });
  scheduler.start();
  return {
    async stop() {
      stopping = true;
      for (const fail of waiting) fail(ended());
      waiting.clear();
      await scheduler.stop();
      store.close();
    },
  };
}

/**
 * Text of a schedule (label, input, rule, target) as one terminal line: a schedule an agent or an API client added
 * can hold escape sequences (clear the screen, retitle the window) and newlines (a forged line of a list); each
 * control character becomes U+FFFD and a line break `⏎`.
 */
export function scheduleText(text: string): string {
  return printable(text.replace(/\r?\n/g, '⏎'));
}

/** The line printed before a scheduled turn: `(alarm 'tea' — due 09:00:00, 2 s late)`. */
export function describeFiring(event: AgentEvent): string {
  const data = (event.data ?? {}) as { label?: string; scheduledAt?: string; latenessMs?: number; late?: boolean };
  const due = data.scheduledAt ? new Date(data.scheduledAt).toLocaleTimeString() : '?';
  const late = data.late ? `, missed while nothing ran: ${Math.round((data.latenessMs ?? 0) / 1000)} s late` : '';
  return `(alarm '${scheduleText(String(data.label ?? event.input))}' — due ${due}${late})`;
}
