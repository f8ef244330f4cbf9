import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type AgentResource, clearAvailabilityCache, createAgentToolset, loadBundle } from '@goondan/core';
import { assistantBundleDir } from '../src/assistant-bundle-dir.ts';
import { writeTempBundle } from './scripted-assistant.ts';

interface ToolDocument {
  kind: string;
  metadata: { name: string };
  spec: { exports: { name: string }[] };
}

const packDocuments = () =>
  Bun.YAML.parse(readFileSync(join(assistantBundleDir, 'goondan.yaml'), 'utf8')) as ToolDocument[];

/**
 * The toolset an Agent listing `tools` (Tool names of the pack, each with an optional per-agent config) gets on this
 * machine now: which tools are offered and which are not, and why (spec.requires). Only those Tool documents of the
 * pack are loaded (their declarations as written; handlers are placeholders), and PATH look-ups are redone.
 */
export async function assistantToolset(tools: Record<string, Record<string, unknown> | null>) {
  const documents = packDocuments().filter((each) => each.kind === 'Tool' && each.metadata.name in tools);
  const entries = Object.entries(tools).map(([name, config]) =>
    config ? { ref: `Tool/${name}`, config } : `Tool/${name}`,
  );
  const agent = {
    apiVersion: 'goondan.ai/v1',
    kind: 'Agent',
    metadata: { name: 'assistant' },
    spec: { tools: entries },
  };
  const dir = await writeTempBundle('assistant-toolset-', {
    'goondan.yaml': [...documents, agent].map((each) => JSON.stringify(each)).join('\n---\n'),
  });
  try {
    const loaded = await loadBundle({ dir, checkEntries: false });
    if (!loaded.bundle) throw new Error(JSON.stringify(loaded.problems, null, 2));
    clearAvailabilityCache();
    const handlers = new Map(
      documents.map((each) => [
        `Tool/${each.metadata.name}`,
        Object.fromEntries(each.spec.exports.map((exported) => [exported.name, () => null])),
      ]),
    );
    const toolset = createAgentToolset({
      bundle: loaded.bundle,
      handlers,
      agent: loaded.bundle.resources.get('Agent/assistant') as AgentResource,
    });
    return {
      offered: toolset.catalogBuilder.build().names(),
      unavailable: Object.fromEntries(
        [...(toolset.unavailable?.values() ?? [])].map((tool) => [tool.name, tool.reason]),
      ),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
