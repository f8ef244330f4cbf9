import { describe, expect, test } from 'bun:test';
import type { AgentNotification } from '@goondan/core';
import { STEP_SEPARATOR, TurnStreams } from './turn-streams.ts';

const note = (type: string, data: Record<string, unknown> = {}, instanceKey = 'default'): AgentNotification =>
  ({
    agent: 'helper',
    instanceKey,
    event: { id: 'evt', type, input: '', source: { kind: 'agent', name: 'helper' }, createdAt: '', data },
  }) as unknown as AgentNotification;

describe('TurnStreams', () => {
  test("routes a turn's text deltas to its follower, the steps' texts separated by a blank line", () => {
    const streams = new TurnStreams();
    const received: string[] = [];
    const unfollow = streams.follow('evt_1', (text) => received.push(text));
    streams.notify(note('runtime.turn.start', { eventId: 'evt_1' }));
    streams.notify(note('runtime.text.delta', { text: 'Let me greet ' }));
    streams.notify(note('runtime.text.delta', { text: 'Ada.' }));
    streams.notify(note('runtime.tool.start', { toolName: 'greet__hello' }));
    streams.notify(note('runtime.tool.start', { toolName: 'greet__hello' }));
    streams.notify(note('runtime.text.delta', { text: 'I greeted her.' }));
    // Another instance's deltas are not this turn's.
    streams.notify(note('runtime.text.delta', { text: 'elsewhere' }, 'other'));
    streams.notify(note('runtime.turn.end', { eventId: 'evt_1' }));
    streams.notify(note('runtime.text.delta', { text: 'after the end' }));
    expect(received.join('')).toBe(`Let me greet Ada.${STEP_SEPARATOR}I greeted her.`);
    unfollow();
  });

  test('a step that only called tools adds no separator before the first text; a throwing follower breaks nothing', () => {
    const streams = new TurnStreams();
    const received: string[] = [];
    streams.follow('evt_2', (text) => {
      received.push(text);
      throw new Error('follower broke');
    });
    streams.notify(note('runtime.turn.start', { eventId: 'evt_2' }));
    streams.notify(note('runtime.tool.start', { toolName: 'greet__hello' }));
    streams.notify(note('runtime.text.delta', { text: 'Done.' }));
    streams.notify(note('runtime.text.delta', { text: ' Really.' }));
    expect(received).toEqual(['Done.', ' Really.']);
  });

  test("onStart is called when the followed event's turn starts, not another's, and no more once unfollowed", () => {
    const streams = new TurnStreams();
    const started: string[] = [];
    const unfollow = streams.follow(
      'evt_3',
      () => {},
      () => started.push('evt_3'),
    );
    streams.notify(note('runtime.turn.start', { eventId: 'evt_other' }));
    expect(started).toEqual([]);
    streams.notify(note('runtime.turn.start', { eventId: 'evt_3' }));
    expect(started).toEqual(['evt_3']);
    unfollow();
    streams.notify(note('runtime.turn.start', { eventId: 'evt_3' }));
    expect(started).toEqual(['evt_3']);
  });

  test('counts the running turns: one per instance, ended by turn.end or by the end of its process', () => {
    const streams = new TurnStreams();
    streams.notify(note('runtime.turn.start', { eventId: 'evt_1' }));
    streams.notify(note('runtime.turn.start', { eventId: 'evt_2' }, 'other'));
    expect(streams.runningTurns).toBe(2);
    streams.notify(note('runtime.turn.end', { eventId: 'evt_1' }));
    expect(streams.runningTurns).toBe(1);
    // Killed mid-turn: no turn.end comes.
    streams.processEnded('helper', 'other');
    expect(streams.runningTurns).toBe(0);
  });
});
