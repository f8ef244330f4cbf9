import { describe, expect, test } from 'bun:test';
import type { IngressRule } from '@goondan/core';
import { checkConnectorEvent } from './check-connector-event.ts';
import { matchIngressRule } from './match-ingress-rule.ts';

const rules: IngressRule[] = [
  {
    match: { event: 'app_mention', properties: { channel_id: 'C-BILLING', team_id: 'T1' } },
    route: { agentRef: 'Agent/billing' },
  },
  { match: { event: 'app_mention' }, route: { instanceKeyProperty: 'user_id', instanceKeyPrefix: 'slack-' } },
  { route: { agentRef: { kind: 'Agent', name: 'inbox' }, instanceKey: 'all' } },
];
const route = (event: Parameters<typeof matchIngressRule>[0]['event']) =>
  matchIngressRule({ rules, event, entryAgent: 'triage', defaultInstanceKey: 'default' });

describe('matchIngressRule', () => {
  test('the first rule whose match holds wins; every listed property must be equal (AND)', () => {
    const properties = { channel_id: 'C-BILLING', team_id: 'T1', user_id: 'U1' };
    expect(route({ name: 'app_mention', properties })).toEqual({ agent: 'billing', instanceKey: 'default', rule: 0 });
    expect(route({ name: 'app_mention', properties: { ...properties, team_id: 'T2' } })).toEqual({
      agent: 'triage',
      instanceKey: 'slack-U1',
      rule: 1,
    });
  });

  test('a rule without match catches everything; agentRef defaults to the entry agent', () => {
    expect(route({ name: 'reaction_added', properties: {} })).toEqual({ agent: 'inbox', instanceKey: 'all', rule: 2 });
  });

  test('an instance key property value is cleaned to key characters; a missing one routes nowhere', () => {
    expect(route({ name: 'app_mention', properties: { user_id: 'U 1/x' } })?.instanceKey).toBe('slack-U_1_x');
    const only = [{ route: { instanceKeyProperty: 'chat_id' } }];
    const event = { name: 'x', properties: {} };
    expect(matchIngressRule({ rules: only, event, entryAgent: 'a', defaultInstanceKey: 'd' })).toBeNull();
    expect(matchIngressRule({ rules: [], event, entryAgent: 'a', defaultInstanceKey: 'd' })).toBeNull();
  });
});

test('userIdProperty names the person the turn acts for, after userIdPrefix; without the property, nobody', () => {
  const byUser: IngressRule[] = [{ route: { userIdProperty: 'user_id', userIdPrefix: 'slack:' } }];
  const routeOf = (properties: Record<string, string>) =>
    matchIngressRule({ rules: byUser, event: { name: 'x', properties }, entryAgent: 'a', defaultInstanceKey: 'd' });
  expect(routeOf({ user_id: 'U1' })).toEqual({ agent: 'a', instanceKey: 'd', rule: 0, userId: 'slack:U1' });
  expect(routeOf({})).toEqual({ agent: 'a', instanceKey: 'd', rule: 0 });
});

describe('checkConnectorEvent', () => {
  const events = [
    { name: 'tick', properties: { at: { type: 'string' as const }, n: { type: 'number' as const, optional: true } } },
  ];

  test('accepts a declared event with properties of their declared types', () => {
    expect(checkConnectorEvent({ name: 'tick', properties: { at: 'now', n: 1 } }, events)).toEqual({
      name: 'tick',
      properties: { at: 'now', n: 1 },
    });
  });

  test('refuses an undeclared event, a wrong type, a missing or undeclared property (E_CONNECTOR_EVENT_INVALID)', () => {
    const bad = [
      { name: 'tock', properties: { at: 'now' } },
      { name: 'tick', properties: { at: 1 } },
      { name: 'tick', properties: {} },
      { name: 'tick', properties: { at: 'now', extra: true } },
      { name: 'tick', message: { type: 'text', text: 3 }, properties: { at: 'now' } },
    ];
    for (const event of bad) {
      expect(() => checkConnectorEvent(event, events)).toThrow(
        expect.objectContaining({ code: 'E_CONNECTOR_EVENT_INVALID' }),
      );
    }
    // A number JSON cannot carry is named as such (the host saw null and said "string, number or boolean").
    expect(() => checkConnectorEvent({ name: 'tick', properties: { at: 'now', n: Number.NaN } }, events)).toThrow(
      'property n must be a finite number (got NaN)',
    );
  });
});
