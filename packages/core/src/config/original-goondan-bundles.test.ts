// Bundles written for the original Goondan: a Package with npm dependencies, package refs, Swarm agents as
// { ref }, Connectors and Connections, an older single-function Tool (docs/packages.md, docs/connectors.md,
// docs/migrating.md). Dependencies are real directories under a temporary node_modules.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTestToolContext } from '../testing.ts';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem, ConnectionResource, ToolResource } from './resources.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** A bundle directory with `files`, plus installed npm packages under its node_modules. */
async function bundle(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gdn-original-'));
  dirs.push(dir);
  await writeFiles(dir, files);
  return dir;
}

function npmPackage(name: string, version: string, yaml: string | null, extra: Record<string, string> = {}) {
  const files: Record<string, string> = {
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, version }),
    ...Object.fromEntries(Object.entries(extra).map(([path, text]) => [`node_modules/${name}/${path}`, text])),
  };
  if (yaml !== null) files[`node_modules/${name}/goondan.yaml`] = yaml;
  return files;
}

const toolsPackage = (version = '1.3.0') =>
  npmPackage(
    '@acme/tools',
    version,
    `apiVersion: goondan.ai/v1
kind: Package
metadata:
  name: "@acme/tools"
spec:
  version: "${version}"
---
apiVersion: goondan.ai/v1
kind: Tool
metadata:
  name: lookup
spec:
  entry: ./lookup.ts
  description: Looks things up
  exports:
    - name: find
      parameters: { type: object, properties: { q: { type: string } } }
---
apiVersion: goondan.ai/v1
kind: Connector
metadata:
  name: webhook
spec:
  entry: ./webhook.ts
  events:
    - name: ticket_opened
      properties:
        ticket_id: { type: string }
        priority: { type: string, optional: true }
`,
    {
      'lookup.ts': 'export const handlers = { find: (_ctx: unknown, input: { q: string }) => "found " + input.q };\n',
      'webhook.ts': 'export default async function run() {}\n',
    },
  );

const packageHeader = (dependencies: string) => `apiVersion: goondan.ai/v1
kind: Package
metadata:
  name: "@acme/helpdesk"
spec:
  version: "0.1.0"
  description: A helpdesk bundle
  dependencies:
${dependencies}
---
`;

const agents = `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: main }
spec: { provider: scripted, model: fixture }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: triage }
spec:
  modelConfig: { modelRef: Model/main }
  tools:
    - ref: { kind: Tool, name: lookup, package: "@acme/tools" }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: billing }
spec:
  modelConfig: { modelRef: Model/main }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: desk }
spec:
  entryAgent: Agent/triage
  agents:
    - ref: Agent/triage
    - ref: Agent/billing
`;

/** The same agents, with no tools. */
const plainAgents = agents.replace('  tools:\n    - ref: { kind: Tool, name: lookup, package: "@acme/tools" }\n', '');

const connection = (rules: string) => `---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: tickets }
spec:
  connectorRef: { kind: Connector, name: webhook, package: "@acme/tools" }
  secrets:
    TOKEN: { valueFrom: { env: ACME_TOKEN } }
  ingress:
    rules:
${rules}
`;

const goodRules = `      - match: { event: ticket_opened, properties: { priority: billing } }
        route: { agentRef: Agent/billing, instanceKeyProperty: ticket_id, instanceKeyPrefix: "ticket-" }
      - route: { instanceKey: inbox }
`;

const codes = (problems: BundleProblem[]) => problems.map((problem) => problem.code);

describe('a Package whose dependencies are installed npm packages', () => {
  test('loads: dependency resources by package ref, Swarm agents as { ref }, a Connection with rules', async () => {
    const dir = await bundle({
      'goondan.yaml': `${packageHeader('    - name: "@acme/tools"\n      version: "^1.2.0"')}${agents}${connection(goodRules)}`,
      'goondan.lock.yaml': '# tolerated beside goondan.yaml; not read\n',
      ...toolsPackage(),
    });
    const { bundle: loaded, problems, handlers } = await loadBundle({ dir });
    expect(problems).toEqual([]);
    expect(loaded?.package).toEqual({
      name: '@acme/helpdesk',
      version: '0.1.0',
      description: 'A helpdesk bundle',
      dependencies: [{ name: '@acme/tools', version: '^1.2.0', index: 0 }],
    });
    const lookup = loaded?.resources.get('Tool/lookup') as ToolResource;
    expect(lookup.library).toBe('@acme/tools');
    expect(lookup.spec.description).toBe('Looks things up');
    expect(loaded?.resources.get('Connector/webhook')?.library).toBe('@acme/tools');
    const swarm = loaded?.resources.get('Swarm/desk');
    expect(swarm?.spec).toMatchObject({ agents: ['Agent/triage', 'Agent/billing'] });
    const tickets = loaded?.resources.get('Connection/tickets') as ConnectionResource;
    expect(tickets.spec.ingress?.rules?.[0]?.route?.agentRef).toBe('Agent/billing');
    const find = handlers.get('Tool/lookup')?.find;
    expect(await find?.(createTestToolContext({ workdir: tmpdir() }), { q: 'refunds' })).toBe('found refunds');
  });

  test('a dependency that is not installed is E_PACKAGE_NOT_FOUND naming it, with the npm command', async () => {
    const dir = await bundle({
      'goondan.yaml': `${packageHeader('    - name: "@acme/missing"\n      version: "^2.0.0"')}${plainAgents}`,
    });
    const { bundle: loaded, problems } = await loadBundle({ dir, checkEntries: false });
    expect(loaded).toBeNull();
    expect(codes(problems)).toEqual(['E_PACKAGE_NOT_FOUND']);
    expect(problems[0]?.message).toContain('@acme/missing');
    expect(problems[0]?.path).toBe('spec.dependencies[0].name');
    expect(problems[0]?.suggestion).toContain("npm install @acme/missing@'^2.0.0'");
  });

  test('an installed version outside the range is E_PACKAGE_VERSION with both versions', async () => {
    const dir = await bundle({
      'goondan.yaml': `${packageHeader('    - name: "@acme/tools"\n      version: "^2.0.0"')}${agents}`,
      ...toolsPackage('1.3.0'),
    });
    const { problems } = await loadBundle({ dir, checkEntries: false });
    expect(codes(problems)).toContain('E_PACKAGE_VERSION');
    const problem = problems.find((candidate) => candidate.code === 'E_PACKAGE_VERSION');
    expect(problem?.message).toContain('1.3.0');
    expect(problem?.message).toContain('^2.0.0');
  });

  test('a ref naming a package the bundle does not have is E_PACKAGE_UNKNOWN with a guess', async () => {
    const dir = await bundle({
      'goondan.yaml': `${packageHeader('    - name: "@acme/tools"\n      version: "^1.0.0"')}${agents.replace('package: "@acme/tools"', 'package: "@acme/tool"')}`,
      ...toolsPackage(),
    });
    const { problems } = await loadBundle({ dir, checkEntries: false });
    expect(codes(problems)).toEqual(['E_PACKAGE_UNKNOWN']);
    expect(problems[0]?.suggestion).toContain('"@acme/tools"');
  });

  test('two dependencies declaring the same Kind/name is E_PACKAGE_CONFLICT; a resource of the bundle settles it', async () => {
    const other = npmPackage(
      '@other/tools',
      '1.0.0',
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: lookup }
spec:
  entry: ./lookup.ts
  exports: [{ name: find }]
`,
      { 'lookup.ts': 'export const handlers = { find: () => 1 };\n' },
    );
    const deps = '    - name: "@acme/tools"\n      version: "^1.0.0"\n    - name: "@other/tools"\n      version: "1.x"';
    const dir = await bundle({
      'goondan.yaml': `${packageHeader(deps)}${agents.replace(', package: "@acme/tools"', '')}`,
      ...toolsPackage(),
      ...other,
    });
    const { problems } = await loadBundle({ dir, checkEntries: false });
    expect(codes(problems)).toEqual(['E_PACKAGE_CONFLICT']);
    expect(problems[0]?.message).toContain('@acme/tools');
    expect(problems[0]?.message).toContain('@other/tools');

    await writeFile(
      join(dir, 'goondan.yaml'),
      `${packageHeader(deps)}${agents.replace(', package: "@acme/tools"', '')}---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: lookup }
spec:
  entry: ./mine.ts
  exports: [{ name: find }]
`,
    );
    const settled = await loadBundle({ dir, checkEntries: false });
    expect(settled.problems).toEqual([]);
    expect(settled.bundle?.resources.get('Tool/lookup')?.library).toBeUndefined();
  });

  test('a Package document that is not first, or with a bad name or version, is E_PACKAGE_INVALID', async () => {
    const dir = await bundle({
      'goondan.yaml': `${plainAgents}---
apiVersion: goondan.ai/v1
kind: Package
metadata: { name: "@acme/late" }
spec: { version: "0.1.0" }
`,
    });
    const late = await loadBundle({ dir, checkEntries: false });
    expect(codes(late.problems)).toEqual(['E_PACKAGE_INVALID']);
    expect(late.problems[0]?.message).toContain('first document');

    await writeFile(
      join(dir, 'goondan.yaml'),
      `apiVersion: goondan.ai/v1\nkind: Package\nmetadata: { name: "Not A Name" }\nspec: { version: "one" }\n---\n${plainAgents}`,
    );
    const bad = await loadBundle({ dir, checkEntries: false });
    expect(bad.problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['E_PACKAGE_INVALID', 'metadata.name'],
      ['E_PACKAGE_INVALID', 'spec.version'],
    ]);
  });
});

describe('Connections', () => {
  test('a rule routing to an unknown agent is E_REF_UNRESOLVED; to a non-member, or on an undeclared event, E_CONNECTION_INVALID', async () => {
    const rules = `      - match: { event: ticket_opend }
        route: { agentRef: Agent/biling }
      - match: { properties: { priorty: high } }
        route: { agentRef: Agent/triage, instanceKeyProperty: ticket, userIdProperty: ticketid }
`;
    const dir = await bundle({
      'goondan.yaml': `${packageHeader('    - name: "@acme/tools"\n      version: "^1.0.0"')}${agents}${connection(rules)}`,
      ...toolsPackage(),
    });
    const { problems } = await loadBundle({ dir, checkEntries: false });
    expect(problems.map((problem) => [problem.code, problem.path, problem.suggestion])).toEqual([
      ['E_CONNECTION_INVALID', 'spec.ingress.rules[0].match.event', 'Did you mean "ticket_opened"?'],
      ['E_REF_UNRESOLVED', 'spec.ingress.rules[0].route.agentRef', 'Did you mean "Agent/billing"?'],
      ['E_CONNECTION_INVALID', 'spec.ingress.rules[1].match.properties.priorty', 'Did you mean "priority"?'],
      ['E_CONNECTION_INVALID', 'spec.ingress.rules[1].route.instanceKeyProperty', 'Did you mean "ticket_id"?'],
      ['E_CONNECTION_INVALID', 'spec.ingress.rules[1].route.userIdProperty', 'Did you mean "ticket_id"?'],
    ]);
  });

  test('a rule routing to an Agent of the bundle outside the Swarm is E_CONNECTION_INVALID naming the members', async () => {
    const outsider = `---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: outsider }
spec:
  modelConfig: { modelRef: Model/main }
`;
    const rules = `      - route: { agentRef: Agent/outsider, instanceKey: inbox }
`;
    const dir = await bundle({
      'goondan.yaml': `${packageHeader('    - name: "@acme/tools"\n      version: "^1.0.0"')}${plainAgents}${outsider}${connection(rules)}`,
      ...toolsPackage(),
    });
    const { problems } = await loadBundle({ dir, checkEntries: false });
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['E_CONNECTION_INVALID', 'spec.ingress.rules[0].route.agentRef'],
    ]);
    expect(problems[0]?.message).toContain(
      'Agent/outsider, which is not a member of Swarm desk; members: triage, billing',
    );
    expect(problems[0]?.suggestion).toContain("Add Agent/outsider to the Swarm's spec.agents");
  });

  test('a Connector whose entry does not exist is E_CONNECTOR_ENTRY_NOT_FOUND', async () => {
    const dir = await bundle({
      'goondan.yaml': `apiVersion: goondan.ai/v1
kind: Connector
metadata: { name: hook }
spec:
  entry: ./missing.ts
`,
    });
    const { problems } = await loadBundle({ dir, checkEntries: false });
    expect(codes(problems)).toEqual(['E_CONNECTOR_ENTRY_NOT_FOUND']);
  });
});

describe('older single-function Tools', () => {
  test('spec.parameters without exports loads as one export `run`, served by the module default export', async () => {
    const dir = await bundle({
      'goondan.yaml': `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: calculate }
spec:
  entry: ./calculate.ts
  description: Adds two numbers
  parameters:
    type: object
    properties: { a: { type: number }, b: { type: number } }
    required: [a, b]
`,
      'calculate.ts': 'export default (_ctx: unknown, input: { a: number; b: number }) => input.a + input.b;\n',
    });
    const { bundle: loaded, problems, handlers } = await loadBundle({ dir });
    expect(problems).toEqual([]);
    const tool = loaded?.resources.get('Tool/calculate') as ToolResource;
    expect(tool.spec.exports).toEqual([
      {
        name: 'run',
        description: 'Adds two numbers',
        parameters: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
      },
    ]);
    expect(
      await handlers.get('Tool/calculate')?.run?.(createTestToolContext({ workdir: tmpdir() }), { a: 2, b: 3 }),
    ).toBe(5);
  });
});
