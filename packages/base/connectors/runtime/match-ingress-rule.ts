import { type IngressRule, parseObjectRef } from '@goondan/core';
import type { ConnectorEvent } from './connector-types.ts';

/** Where an event goes: an agent instance, and the rule that sent it there. */
export interface IngressRoute {
  agent: string;
  instanceKey: string;
  rule: number;
  /** The person the turn acts for (route.userIdProperty), when the rule names one and the event has it. */
  userId?: string;
}

function matches(rule: IngressRule, event: ConnectorEvent): boolean {
  const match = rule.match;
  if (!match) return true;
  if (match.event !== undefined && match.event !== event.name) return false;
  return Object.entries(match.properties ?? {}).every(([key, value]) => event.properties?.[key] === value);
}

const keyCharacters = /[^a-zA-Z0-9_.:-]/g;

/**
 * Routes an event by a Connection's ingress rules (docs/connectors.md#ingress-rules): the first rule whose match holds
 * (event name and every listed property equal; no match: every event) wins. The agent is the rule's agentRef, else
 * the Swarm's entry agent; the instance key is the rule's fixed instanceKey, else instanceKeyPrefix + the value of
 * instanceKeyProperty (characters outside [a-zA-Z0-9_.:-] become `_`), else `defaultInstanceKey`; the user the turn acts
 * for is userIdPrefix + the value of userIdProperty, when the event has it. Null: no rule matched, or the property
 * it keys on is missing.
 */
export function matchIngressRule(options: {
  rules: readonly IngressRule[];
  event: ConnectorEvent;
  entryAgent: string;
  defaultInstanceKey: string;
}): IngressRoute | null {
  const { rules, event } = options;
  const index = rules.findIndex((rule) => matches(rule, event));
  if (index < 0) return null;
  const route = rules[index]?.route ?? {};
  const agent = (route.agentRef === undefined ? null : parseObjectRef(route.agentRef)?.name) ?? options.entryAgent;
  let instanceKey = route.instanceKey ?? options.defaultInstanceKey;
  if (route.instanceKeyProperty !== undefined) {
    const value = event.properties?.[route.instanceKeyProperty];
    if (value === undefined) return null;
    instanceKey = `${route.instanceKeyPrefix ?? ''}${String(value).replace(keyCharacters, '_')}`.slice(0, 128);
  }
  const user = route.userIdProperty === undefined ? undefined : event.properties?.[route.userIdProperty];
  const userId =
    user === undefined || user === '' ? undefined : `${route.userIdPrefix ?? ''}${String(user)}`.slice(0, 256);
  return userId === undefined ? { agent, instanceKey, rule: index } : { agent, instanceKey, rule: index, userId };
}
