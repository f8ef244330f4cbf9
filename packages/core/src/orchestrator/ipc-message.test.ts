import { describe, expect, test } from 'bun:test';
import { formatAddress, isIpcMessage, parseAddress, replyEvent } from './ipc-message.ts';

describe('IPC messages (spec v2.0-b §11.2)', () => {
  test('only event, shutdown and shutdown_ack with from, to and a payload are messages', () => {
    const event = replyEvent({ source: 'orchestrator', data: { correlationId: 'c1' } });
    expect(isIpcMessage({ type: 'event', from: 'a/default', to: 'orchestrator', payload: event })).toBe(true);
    expect(
      isIpcMessage({
        type: 'shutdown',
        from: 'orchestrator',
        to: 'a/default',
        payload: { gracePeriodMs: 1, reason: 'x' },
      }),
    ).toBe(true);
    expect(
      isIpcMessage({ type: 'shutdown_ack', from: 'a/default', to: 'orchestrator', payload: { turnsServed: 0 } }),
    ).toBe(true);
    expect(isIpcMessage({ type: 'delegate', from: 'a', to: 'b', payload: event })).toBe(false);
    expect(isIpcMessage({ type: 'event', from: 'a', to: 'b', payload: { input: 'no type' } })).toBe(false);
    expect(isIpcMessage({ type: 'event', to: 'b', payload: event })).toBe(false);
    expect(isIpcMessage(null)).toBe(false);
  });

  test('an address is the agent name, qualified by the instance key', () => {
    expect(formatAddress('worker', 'job-7')).toBe('worker/job-7');
    expect(parseAddress('worker/job-7')).toEqual({ agent: 'worker', instanceKey: 'job-7' });
    expect(parseAddress('worker')).toEqual({ agent: 'worker' });
  });
});
