import type { AgentEvent } from '../agent/agent-event.ts';
import type { Orchestrator } from '../orchestrator/orchestrator.ts';
import type { ScheduleTarget } from './schedule-types.ts';

/**
 * The Scheduler's `deliver` for a host running an Orchestrator: the event, with its own id, goes to the target
 * instance like a send. It is accepted once stored in that instance's inbox (`sendStored` resolves after the commit;
 * one that could not be stored rejects, and the Scheduler retries it), so a crash after this point loses nothing; the
 * instance's process handles it when it runs.
 */
export function orchestratorDeliver(
  orchestrator: Pick<Orchestrator, 'sendStored'>,
): (target: ScheduleTarget, event: AgentEvent) => Promise<void> {
  return async (target, event) => {
    await orchestrator.sendStored({
      id: event.id,
      type: event.type,
      input: event.input,
      target: target.agent,
      instanceKey: target.instanceKey,
      source: event.source,
      ...(event.data === undefined ? {} : { data: event.data }),
    });
  };
}
