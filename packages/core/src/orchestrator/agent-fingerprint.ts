import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseObjectRef, parseRefEntry } from '../config/object-ref.ts';
import type { Bundle, Resource } from '../config/resources.ts';

function entryText(resource: Resource): string | null {
  const entry = (resource.spec as { entry?: unknown }).entry;
  if (typeof entry !== 'string') return null;
  try {
    return readFileSync(resolve(resource.location.baseDir, entry), 'utf8');
  } catch {
    return null;
  }
}

function describe(resource: Resource | undefined): unknown {
  if (!resource) return null;
  return { kind: resource.kind, name: resource.metadata.name, spec: resource.spec, entry: entryText(resource) };
}

/**
 * A digest of everything that shapes one agent's process: its Agent resource, its Model, the Tools and
 * Extensions it references (spec and the text of their entry modules) and the Swarms it belongs to. `gdn run
 * --watch` restarts exactly the agents whose digest changed. Modules imported by an entry are not followed.
 */
export function agentFingerprint(bundle: Bundle, agentName: string): string {
  const agent = bundle.resources.get(`Agent/${agentName}`);
  if (agent?.kind !== 'Agent') return 'missing';
  const model = parseObjectRef(agent.spec.modelConfig?.modelRef);
  const parts: unknown[] = [describe(agent), describe(model ? bundle.resources.get(`Model/${model.name}`) : undefined)];
  for (const entry of agent.spec.tools ?? []) {
    const ref = parseRefEntry(entry)?.ref;
    if (ref) parts.push(describe(bundle.resources.get(`Tool/${ref.name}`)));
  }
  for (const entry of agent.spec.extensions ?? []) {
    const ref = parseRefEntry(entry)?.ref;
    if (ref) parts.push(describe(bundle.resources.get(`Extension/${ref.name}`)));
  }
  for (const resource of bundle.resources.values()) {
    if (resource.kind !== 'Swarm') continue;
    if (resource.spec.agents.some((ref) => parseObjectRef(ref)?.name === agentName)) parts.push(describe(resource));
  }
  return Bun.hash(JSON.stringify(parts)).toString(16);
}
