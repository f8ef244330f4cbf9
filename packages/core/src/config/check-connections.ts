import { resolve } from 'node:path';
import { closestName } from '../errors/closest-names.ts';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import { isFile } from './find-bundle-dir.ts';
import type { FieldPath, YamlDocument } from './locate-field.ts';
import { parseObjectRef, refKey } from './object-ref.ts';
import type {
  BundleProblem,
  ConnectionResource,
  ConnectorResource,
  ConnectorResourceSpec,
  Resource,
  SwarmResource,
} from './resources.ts';

type DeclaredEvent = NonNullable<ConnectorResourceSpec['events']>[number];

function checkConnector(resource: ConnectorResource, document: YamlDocument): BundleProblem[] {
  const problems: BundleProblem[] = [];
  const { entry, events } = resource.spec;
  if (typeof entry === 'string' && entry !== '') {
    const file = resolve(resource.location.baseDir, entry);
    if (!isFile(file)) {
      const message = `Connector ${resource.metadata.name}: spec.entry "${entry}" does not exist (looked for ${file})`;
      problems.push(problemAt(document, { code: 'E_CONNECTOR_ENTRY_NOT_FOUND', path: ['spec', 'entry'], message }));
    }
  }
  const seen = new Set<string>();
  (Array.isArray(events) ? events : []).forEach((event, index) => {
    if (typeof event?.name !== 'string') return;
    if (seen.has(event.name)) {
      const message = `Connector ${resource.metadata.name} declares event "${event.name}" twice`;
      problems.push(
        problemAt(document, { code: 'E_RESOURCE_INVALID', path: ['spec', 'events', index, 'name'], message }),
      );
    }
    seen.add(event.name);
  });
  return problems;
}

/** The Swarm a Connection feeds: its swarmRef, else the bundle's only Swarm; null when there is none to check against. */
function swarmOf(connection: ConnectionResource, resources: Map<string, Resource>): SwarmResource | null | 'ambiguous' {
  const ref = connection.spec.swarmRef === undefined ? null : parseObjectRef(connection.spec.swarmRef);
  if (ref) return (resources.get(refKey('Swarm', ref.name)) as SwarmResource | undefined) ?? null;
  const swarms = [...resources.values()].filter((resource) => resource.kind === 'Swarm') as SwarmResource[];
  if (swarms.length > 1) return 'ambiguous';
  return swarms[0] ?? null;
}

function checkRules(options: {
  connection: ConnectionResource;
  document: YamlDocument;
  events: DeclaredEvent[] | null;
  members: string[] | null;
  swarmName: string | null;
}): BundleProblem[] {
  const { connection, document, events, members } = options;
  const problems: BundleProblem[] = [];
  const fail = (path: FieldPath, message: string, suggestion?: string) =>
    problems.push(
      problemAt(document, { code: 'E_CONNECTION_INVALID', path, message, ...(suggestion ? { suggestion } : {}) }),
    );
  const rules = connection.spec.ingress?.rules;
  (Array.isArray(rules) ? rules : []).forEach((rule, index) => {
    const at: FieldPath = ['spec', 'ingress', 'rules', index];
    const eventName = rule?.match?.event;
    let event: DeclaredEvent | undefined;
    if (events && typeof eventName === 'string') {
      event = events.find((candidate) => candidate.name === eventName);
      if (!event) {
        const names = events.map((candidate) => candidate.name);
        const guess = closestName(eventName, names);
        fail(
          [...at, 'match', 'event'],
          `Rule ${index} matches event "${eventName}", which the Connector does not declare; its events: ${names.join(', ') || '(none)'}`,
          guess ? `Did you mean "${guess}"?` : undefined,
        );
        return;
      }
    }
    // Properties a rule may name: those of its event, or (no event named) those of any event.
    const declared = events
      ? new Set((event ? [event] : events).flatMap((candidate) => Object.keys(candidate.properties ?? {})))
      : null;
    const checkProperty = (name: string, path: FieldPath) => {
      if (!declared || declared.has(name)) return;
      const guess = closestName(name, declared);
      fail(
        path,
        `Rule ${index} uses property "${name}", which ${event ? `event "${event.name}" does not declare` : 'no event of the Connector declares'}; properties: ${[...declared].join(', ') || '(none)'}`,
        guess ? `Did you mean "${guess}"?` : undefined,
      );
    };
    for (const name of Object.keys(rule?.match?.properties ?? {})) {
      checkProperty(name, [...at, 'match', 'properties', name]);
    }
    const route = rule?.route ?? {};
    if (route.instanceKey !== undefined && route.instanceKeyProperty !== undefined) {
      fail([...at, 'route'], `Rule ${index} gives both instanceKey and instanceKeyProperty; choose one`);
    }
    if (typeof route.instanceKeyProperty === 'string') {
      checkProperty(route.instanceKeyProperty, [...at, 'route', 'instanceKeyProperty']);
    }
    if (typeof route.userIdProperty === 'string') {
      checkProperty(route.userIdProperty, [...at, 'route', 'userIdProperty']);
    }
    const agent = route.agentRef === undefined ? null : parseObjectRef(route.agentRef);
    if (agent && members && !members.includes(agent.name)) {
      fail(
        [...at, 'route', 'agentRef'],
        `Rule ${index} routes to Agent/${agent.name}, which is not a member of Swarm ${options.swarmName}; members: ${members.join(', ')}`,
        `Add Agent/${agent.name} to the Swarm's spec.agents, or route to a member.`,
      );
    }
  });
  return problems;
}

/**
 * The rules of Connectors and Connections beyond their shape and references (docs/connectors.md): a Connector's
 * entry exists and its events have distinct names; a Connection without swarmRef has one Swarm to feed; its rules
 * match only declared events and properties, and route only to members of the Swarm (E_CONNECTION_INVALID).
 */
export function checkConnections(
  declared: readonly DeclaredResource[],
  resources: Map<string, Resource>,
): BundleProblem[] {
  const problems: BundleProblem[] = [];
  for (const { resource, document } of declared) {
    if (resource.kind === 'Connector') problems.push(...checkConnector(resource, document));
    if (resource.kind !== 'Connection') continue;
    const swarm = swarmOf(resource, resources);
    if (swarm === 'ambiguous') {
      const message = `Connection ${resource.metadata.name} has no swarmRef, and the bundle declares several Swarms`;
      problems.push(
        problemAt(document, {
          code: 'E_CONNECTION_INVALID',
          path: ['spec', 'swarmRef'],
          message,
          suggestion: 'Name the Swarm it feeds: swarmRef: Swarm/NAME.',
        }),
      );
      continue;
    }
    const connectorRef = parseObjectRef(resource.spec.connectorRef);
    const connector = connectorRef
      ? (resources.get(refKey('Connector', connectorRef.name)) as ConnectorResource | undefined)
      : undefined;
    const events = Array.isArray(connector?.spec.events) ? connector.spec.events : null;
    const members = swarm
      ? swarm.spec.agents.map((ref) => parseObjectRef(ref)?.name).filter((name) => name !== undefined)
      : null;
    problems.push(
      ...checkRules({ connection: resource, document, events, members, swarmName: swarm?.metadata.name ?? null }),
    );
  }
  return problems;
}
