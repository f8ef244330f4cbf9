/**
 * Inter-agent communication (spec v2.0-b §2.6, §11): request (waits for the callee's turn), send
 * (fire-and-forget), spawn, list and catalog. Everything goes through `ctx.agents`, the Orchestrator client of the
 * agent process; failures come back as error ToolResults with agent error codes (E_AGENT_UNKNOWN, E_AGENT_CRASHED, …) (spec §2.6.5).
 */
import type { AgentsRuntime, JsonValue, ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';

interface TargetInput {
  target: string;
  instanceKey?: string;
}

interface MessageInput extends TargetInput {
  input: string;
  data?: JsonValue;
}

interface RequestInput extends MessageInput {
  timeoutMs?: number;
  async?: boolean;
}

function runtimeOf(ctx: ToolContext, exportName: string): AgentsRuntime {
  if (!ctx.agents) {
    throw new GoondanError(
      'E_AGENT_RUNTIME_UNAVAILABLE',
      `agents__${exportName} needs the Orchestrator, but this agent runs without one.`,
    );
  }
  return ctx.agents;
}

function messageOptions(ctx: ToolContext, input: MessageInput) {
  return {
    target: input.target,
    input: input.input,
    ...(input.instanceKey === undefined ? {} : { instanceKey: input.instanceKey }),
    ...(input.data === undefined ? {} : { data: input.data }),
    ...(ctx.trace ? { trace: ctx.trace } : {}),
  };
}

export const handlers = {
  /** Sets replyTo; the caller's turn waits (up to timeoutMs) — or, with async, answers pending at once. */
  request: (ctx: ToolContext, input: RequestInput) => {
    const agents = runtimeOf(ctx, 'request');
    const options = {
      ...messageOptions(ctx, input),
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    };
    if (!input.async) return agents.request({ ...options, signal: ctx.signal });
    // The target is checked now (a mistake is an error result at once); the reply completes the job later and
    // reaches the agent as a tool.job.completed event (spec §10.2).
    const controller = new AbortController();
    const reply = agents.request({ ...options, async: true, signal: controller.signal });
    reply.catch(() => {});
    return ctx.jobs.submit((signal) => {
      signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
      return reply as unknown as Promise<JsonValue>;
    });
  },
  /** No replyTo: returns { sent: true } as soon as the event is on its way. */
  send: (ctx: ToolContext, input: MessageInput) => runtimeOf(ctx, 'send').send(messageOptions(ctx, input)),
  spawn: (ctx: ToolContext, input: TargetInput) =>
    runtimeOf(ctx, 'spawn').spawn({
      target: input.target,
      ...(input.instanceKey === undefined ? {} : { instanceKey: input.instanceKey }),
    }),
  list: async (ctx: ToolContext) => ({ instances: await runtimeOf(ctx, 'list').list() }),
  catalog: (ctx: ToolContext) => ({ self: ctx.agentName, agents: runtimeOf(ctx, 'catalog').catalog() }),
};
