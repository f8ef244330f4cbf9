import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseBundleDir } from '@goondan/base';
import type { AgentResource, OpenAgentInstanceOptions, ScriptedStep } from '@goondan/core';
import { createScriptedModel, loadBundle, openAgentInstance } from '@goondan/core';
import { assistantBundleDir } from '../src/assistant-bundle-dir.ts';

/** A fresh temp directory (realpath'd) holding `files` (name → text); the caller removes it. */
export async function writeTempBundle(prefix: string, files: Record<string, string>): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(dir, name), text)));
  return dir;
}

/** Agent/assistant of the bundle in `dir`, loaded with both libraries, answering with `steps` (instance `test`). */
export async function openScriptedAssistant(
  options: { dir: string; steps: ScriptedStep[] } & Partial<
    Pick<OpenAgentInstanceOptions, 'stateDir' | 'logger' | 'observer'>
  >,
) {
  const { dir, steps, ...rest } = options;
  const loaded = await loadBundle({ dir, libraries: [baseBundleDir, assistantBundleDir] });
  if (!loaded.bundle) throw new Error(JSON.stringify(loaded.problems, null, 2));
  const model = createScriptedModel(steps);
  const instance = await openAgentInstance({
    bundle: loaded.bundle,
    handlers: loaded.handlers,
    agent: loaded.bundle.resources.get('Agent/assistant') as AgentResource,
    instanceKey: 'test',
    model,
    ...rest,
  });
  return { instance, model };
}
