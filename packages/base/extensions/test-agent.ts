/**
 * Test support for the base extensions: a temporary bundle (its own goondan.yaml and files, with @goondan/base as
 * a library) run by a real agent instance on the scripted model.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentInstance, AgentResource, Message, ScriptedStep } from '@goondan/core';
import { createScriptedModel, loadBundle, openAgentInstance } from '@goondan/core';
import { baseBundleDir } from '../src/index.ts';

export interface TestBundle {
  dir: string;
  stateDir: string;
  cleanup(): Promise<void>;
}

/** Writes `files` (path → text) into a fresh directory; goondan.yaml among them. */
export async function makeBundle(files: Record<string, string>): Promise<TestBundle> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'gdn-ext-bundle-')));
  for (const [path, text] of Object.entries(files)) {
    await Bun.write(join(dir, path), text);
  }
  const stateDir = join(dir, '.state');
  return { dir, stateDir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A handlers module exporting `names`, each answering `{ tool: name, input }`. */
export function echoModule(names: readonly string[]): string {
  const entries = names.map(
    (name) => `${JSON.stringify(name)}: (_ctx, input) => ({ tool: ${JSON.stringify(name)}, input })`,
  );
  return `export const handlers = {\n  ${entries.join(',\n  ')},\n};\n`;
}

/** A Tool document named `name` whose `exports` each take `{ text }`, served by the handlers module `entry`. */
export function toolDocument(name: string, exports: readonly string[], entry = './tools.ts'): string {
  const entries = exports.map(
    (exported) =>
      `    - name: ${exported}\n      description: ${name} ${exported} tool\n      parameters: { type: object, properties: { text: { type: string } } }`,
  );
  return `
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: ${name} }
spec:
  entry: ${entry}
  exports:
${entries.join('\n')}
`;
}

export interface OpenedAgent {
  instance: AgentInstance;
  model: ReturnType<typeof createScriptedModel>;
  lines: string[];
}

/** Loads the bundle (with @goondan/base) and opens `agentName` on a scripted model playing `steps`. */
export async function openAgent(
  bundle: TestBundle,
  agentName: string,
  steps: ScriptedStep[],
  options: { instanceKey?: string } = {},
): Promise<OpenedAgent> {
  const loaded = await loadBundle({ dir: bundle.dir, libraries: [baseBundleDir] });
  if (!loaded.bundle) throw new Error(`bundle problems: ${JSON.stringify(loaded.problems, null, 2)}`);
  const lines: string[] = [];
  const record = (...values: unknown[]) => lines.push(values.map(String).join(' '));
  const logger = { ...console, log: record, info: record, debug: record, warn: record, error: record } as Console;
  const model = createScriptedModel(steps);
  const instance = await openAgentInstance({
    bundle: loaded.bundle,
    handlers: loaded.handlers,
    agent: loaded.bundle.resources.get(`Agent/${agentName}`) as AgentResource,
    instanceKey: options.instanceKey ?? 'test',
    model,
    stateDir: bundle.stateDir,
    logger,
  });
  return { instance, model, lines };
}

/** The outputs (ToolResult values) of the tool messages in a conversation, in order. */
export function toolResults(messages: readonly Message[]): { status: string; output?: unknown; error?: unknown }[] {
  return messages
    .filter((message) => message.data.role === 'tool')
    .map((message) => (message.data.content as { output: { value: never } }[])[0]!.output.value);
}
