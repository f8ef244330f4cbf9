import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function load(yaml: string, cacheDir: string | null = null) {
  const dir = await mkdtemp(join(tmpdir(), 'gdn-ignored-'));
  dirs.push(dir);
  await writeFile(join(dir, 'goondan.yaml'), yaml);
  return loadBundle({ dir, libraryCacheDir: cacheDir });
}

const brief = (warning: BundleProblem) => [warning.code, warning.line, warning.column, warning.path, warning.message];

const model = `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: main }
spec:
  provider: scripted
  model: demo
  params: { anything: 1 }
  script: [{ text: hi }]
`;

describe('fields this runtime ignores (E_FIELD_IGNORED warnings)', () => {
  test('misspelt Agent fields are warnings at the field, with the field meant; the bundle still loads', async () => {
    const { bundle, problems, warnings } = await load(`${model}---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfg: { modelRef: Model/main }
  prompt:
    sytem: Be brief.
  tols: []
  policy: { maxStepsPerTurns: 3 }
`);
    expect(problems).toEqual([]);
    expect(bundle).not.toBeNull();
    expect(warnings.map(brief)).toEqual([
      [
        'E_FIELD_IGNORED',
        14,
        3,
        'spec.modelConfg',
        'spec.modelConfg is not a field of an Agent and is ignored; did you mean modelConfig?',
      ],
      [
        'E_FIELD_IGNORED',
        16,
        5,
        'spec.prompt.sytem',
        'spec.prompt.sytem is not a field of an Agent and is ignored; did you mean system?',
      ],
      [
        'E_FIELD_IGNORED',
        17,
        3,
        'spec.tols',
        'spec.tols is not a field of an Agent and is ignored; did you mean tools?',
      ],
      [
        'E_FIELD_IGNORED',
        18,
        13,
        'spec.policy.maxStepsPerTurns',
        'spec.policy.maxStepsPerTurns is not a field of an Agent and is ignored; did you mean maxStepsPerTurn?',
      ],
    ]);
    expect(warnings[0]!.suggestion).toContain('Fields here: modelConfig, prompt, tools');
    expect(warnings[0]!.helpUrl).toBe('docs/errors/E_FIELD_IGNORED.md');
  });

  test('free-form objects (params, script steps, config) and fields of other runtimes far from any are not guessed', async () => {
    const { warnings } = await load(`${model}---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfig: { modelRef: Model/main, params: { temperature: 0 } }
  hooks: [one]
`);
    expect(warnings.map((warning) => warning.message)).toEqual([
      'spec.hooks is not a field of an Agent and is ignored',
    ]);
  });

  test('a valid bundle without unknown fields, the base library beside it, has none; a refused field is a problem', async () => {
    const clean = await load(`${model}---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfig: { modelRef: Model/main }
  tools: [Tool/file-system]
`);
    expect(clean.warnings).toEqual([]);
    const refused = await load(`${model}---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfig: { modelRef: Model/main }
  permissions: { sensitiv: allow }
`);
    expect(refused.problems.map((problem) => problem.code)).toEqual(['E_RESOURCE_INVALID']);
    expect(refused.warnings).toEqual([]);
  });

  test('the checked-file cache does not lose them: the second load of the same file warns the same', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'gdn-ignored-cache-'));
    dirs.push(cacheDir);
    const yaml = `${model}---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: team }
spec: { entryAgent: Agent/helper, agents: [Agent/helper], instancekey: main }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec: { modelConfig: { modelRef: Model/main } }
`;
    const first = await load(yaml, cacheDir);
    expect(first.warnings.map(brief)).toEqual([
      [
        'E_FIELD_IGNORED',
        13,
        59,
        'spec.instancekey',
        'spec.instancekey is not a field of a Swarm and is ignored; did you mean instanceKey?',
      ],
    ]);
    const dir = first.bundle!.rootDir;
    const second = await loadBundle({ dir, libraryCacheDir: cacheDir });
    expect(second.warnings.map(brief)).toEqual(first.warnings.map(brief));
  });
});
