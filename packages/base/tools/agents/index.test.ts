import { describe, expect, test } from 'bun:test';
import { type AgentRequestOptions, type AgentsRuntime, GoondanError, isPendingSubmission } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { errorCodeOf } from '../../test/helpers.ts';
import { handlers } from './index.ts';

/** A runtime that records requests and answers them from `answer`. */
function fakeRuntime(answer: (options: AgentRequestOptions) => Promise<unknown> = async () => ({ text: 'ok' })) {
  const requests: AgentRequestOptions[] = [];
  const runtime: AgentsRuntime = {
    request: (options) => {
      if (options.target === 'nobody') throw new GoondanError('E_AGENT_UNKNOWN', "No agent named 'nobody'.");
      requests.push(options);
      return answer(options) as ReturnType<AgentsRuntime['request']>;
    },
    send: async (options) => ({ sent: true, eventId: 'evt_1', agent: options.target, instanceKey: 'default' }),
    spawn: async () => {
      throw new Error('not used');
    },
    list: async () => [],
    catalog: () => [{ name: 'worker', entry: false }],
  };
  return { runtime, requests };
}

/** Runs a handler the way the executor does: a synchronous throw becomes a rejection. */
const call = (work: () => unknown) => Promise.resolve().then(work);

const trace = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };

describe('agents tool', () => {
  test('without an Orchestrator every export fails with E_AGENT_RUNTIME_UNAVAILABLE', async () => {
    const ctx = createTestToolContext({ workdir: '/tmp' });
    expect(await errorCodeOf(call(() => handlers.request(ctx, { target: 'worker', input: 'hi' })))).toBe(
      'E_AGENT_RUNTIME_UNAVAILABLE',
    );
    expect(await errorCodeOf(call(() => handlers.send(ctx, { target: 'worker', input: 'hi' })))).toBe(
      'E_AGENT_RUNTIME_UNAVAILABLE',
    );
    expect(await errorCodeOf(call(() => handlers.catalog(ctx)))).toBe('E_AGENT_RUNTIME_UNAVAILABLE');
  });

  test("request passes the call's trace and abort signal, and returns the callee's reply", async () => {
    const { runtime, requests } = fakeRuntime();
    const ctx = createTestToolContext({ workdir: '/tmp', agents: runtime, trace });
    expect(await call(() => handlers.request(ctx, { target: 'worker', input: 'hi', timeoutMs: 500 }))).toEqual({
      text: 'ok',
    });
    expect(requests[0]).toMatchObject({ target: 'worker', input: 'hi', timeoutMs: 500, trace, signal: ctx.signal });
  });

  test('async: a bad target fails at once; a good one answers pending and completes as a job', async () => {
    const { runtime, requests } = fakeRuntime(async () => ({ text: 'later' }));
    const ctx = createTestToolContext({ workdir: '/tmp', agents: runtime, trace });
    expect(await errorCodeOf(call(() => handlers.request(ctx, { target: 'nobody', input: 'x', async: true })))).toBe(
      'E_AGENT_UNKNOWN',
    );
    const pending = handlers.request(ctx, { target: 'worker', input: 'x', async: true });
    expect(isPendingSubmission(pending)).toBe(true);
    expect(requests[0]).toMatchObject({ async: true });
    await Bun.sleep(5);
    const handle = (pending as { handle: string }).handle;
    expect(ctx.jobs.poll(handle)).toMatchObject({ status: 'ok', output: { text: 'later' } });
  });

  test('send returns {sent: true}; catalog names the caller and whom it may call', async () => {
    const { runtime } = fakeRuntime();
    const ctx = createTestToolContext({ workdir: '/tmp', agents: runtime, agentName: 'coordinator' });
    expect(await handlers.send(ctx, { target: 'worker', input: 'fyi' })).toMatchObject({ sent: true, agent: 'worker' });
    expect(handlers.catalog(ctx)).toEqual({ self: 'coordinator', agents: [{ name: 'worker', entry: false }] });
  });
});
