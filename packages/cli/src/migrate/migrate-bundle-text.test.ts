import { describe, expect, test } from 'bun:test';
import { migrateBundleText } from './migrate-bundle-text.ts';

const older = `# A bundle written for an older Goondan runtime.
apiVersion: agents.example.io/v1alpha1
kind: Tool
metadata:
  name: slack
spec:
  runtime: node   # v1 only
  entry: ./tools/slack.ts
  auth: { oauthAppRef: { kind: OAuthApp, name: slack } }
  exports:
    - name: slack.postMessage   # the model saw slack.postMessage
      description: Posts a message
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfig: { modelRef: main }
  tools:
    - bash
    - ref: slack
    - { apiVersion: goondan.ai/v1, kind: Tool, name: file-system }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: team }
spec:
  entryAgent: helper
  agents: [{ ref: Agent/helper }]
---
kind: ResourceType
metadata: { name: custom }
`;

describe('migrateBundleText', () => {
  test('rewrites what does not load, keeps comments, and lists what it could not convert', () => {
    const { text, changes, unconverted } = migrateBundleText(older);
    expect(changes.map((change) => [change.line, change.resource, change.message])).toEqual([
      [2, 'Tool/slack', 'apiVersion "agents.example.io/v1alpha1" → goondan.ai/v1'],
      [7, 'Tool/slack', 'spec.runtime "node" removed: every handler runs on Bun'],
      [
        11,
        'Tool/slack',
        'export "slack.postMessage" → "post_message" (the model sees slack__post_message); rename its key in the module\'s handlers too',
      ],
      [18, 'Agent/helper', 'reference "main" → "Model/main"'],
      [20, 'Agent/helper', 'reference "bash" → "Tool/bash"'],
      [21, 'Agent/helper', 'reference "slack" → "Tool/slack"'],
      [22, 'Agent/helper', 'reference: apiVersion dropped (references are { kind, name, package? })'],
      [28, 'Swarm/team', 'reference "helper" → "Agent/helper"'],
    ]);
    expect(unconverted.map((note) => [note.resource, note.path])).toEqual([
      ['Tool/slack', 'spec.auth'],
      ['ResourceType/custom', 'kind'],
    ]);
    // Only the changed values and the removed lines differ; comments, spacing and flow lists stay as written.
    const expected = older
      .replace('apiVersion: agents.example.io/v1alpha1', 'apiVersion: goondan.ai/v1')
      .replace('  runtime: node   # v1 only\n', '')
      .replace('- name: slack.postMessage   #', '- name: post_message   #')
      .replace('modelRef: main', 'modelRef: Model/main')
      .replace('- bash', '- Tool/bash')
      .replace('ref: slack', 'ref: Tool/slack')
      .replace('{ apiVersion: goondan.ai/v1, kind: Tool,', '{ kind: Tool,')
      .replace('entryAgent: helper', 'entryAgent: Agent/helper');
    expect(text).toBe(expected);
    // A second run has nothing left to change.
    expect(migrateBundleText(text).changes).toEqual([]);
  });

  test('a bundle that loads as it is comes back byte for byte', () => {
    const current = 'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata:   { name: a }\nspec: {}\n';
    expect(migrateBundleText(current)).toEqual({ text: current, changes: [], unconverted: [] });
  });

  test('keeps a BOM, CRLF line endings and untouched flow lists byte for byte', () => {
    const crlf = [
      '\uFEFF# tool\r\n',
      'apiVersion: goondan.ai/v1\r\n',
      'kind: Tool\r\n',
      'metadata: {name: notes}   # flow, unpadded\r\n',
      'spec:\r\n',
      '  runtime: node\r\n',
      '  entry: ./notes.ts\r\n',
      '  exports:\r\n',
      '    - name: notes.add # comment\r\n',
      '      parameters: {type: object, required: [name]}\r\n',
    ].join('');
    const { text, changes } = migrateBundleText(crlf);
    expect(changes.map((change) => change.path)).toEqual(['spec.runtime', 'spec.exports.0.name']);
    expect(text).toBe(crlf.replace('  runtime: node\r\n', '').replace('notes.add', 'add'));
    const lf = 'apiVersion: v1\nkind: Agent\nmetadata: { name: a }\nspec: { tools: [bash], required: [name] }\n';
    expect(migrateBundleText(lf).text).toBe(
      'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec: { tools: [Tool/bash], required: [name] }\n',
    );
  });

  test("a missing apiVersion is added as the first line, in the file's line ending", () => {
    const text = 'kind: Model\r\nmetadata: { name: m }\r\nspec: { provider: openai, model: gpt }\r\n';
    expect(migrateBundleText(text).text).toBe(`apiVersion: goondan.ai/v1\r\n${text}`);
  });

  test('an export renamed to a word YAML reads as another type is quoted', () => {
    const text =
      'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: t }\nspec:\n  entry: ./t.ts\n  exports:\n    - name: t.True\n';
    expect(migrateBundleText(text).text).toEndWith('    - name: "true"\n');
  });

  test('YAML that does not parse is reported, not rewritten', () => {
    const broken = 'kind: Tool\n  bad: [\n';
    const result = migrateBundleText(broken);
    expect(result.text).toBe(broken);
    expect(result.unconverted[0]?.message).toContain('does not parse');
  });

  test('an alias bomb ("billion laughs") is reported as not parsing, not thrown', () => {
    const levels = ['  a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [from, to] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'f'],
    ]) {
      levels.push(`  ${to}: &${to} [${Array(10).fill(`*${from}`).join(', ')}]`);
    }
    const bomb = `apiVersion: v1\nkind: Agent\nmetadata: { name: a }\nspec:\n${levels.join('\n')}\n  tools: [bash]\n`;
    const result = migrateBundleText(bomb);
    expect(result.text).toBe(bomb);
    expect(result.changes).toEqual([]);
    expect(result.unconverted[0]?.message).toContain('alias');
  });
});

describe('Connectors and Connections', () => {
  test('the current shapes need nothing; other shapes are listed as not converted, with the fields that exist', () => {
    const current = `apiVersion: goondan.ai/v1
kind: Connector
metadata: { name: hook }
spec:
  entry: ./hook.ts
  events: [{ name: ping }]
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: hook-desk }
spec:
  connectorRef: Connector/hook
  ingress: { rules: [{ route: { instanceKey: inbox } }] }
`;
    expect(migrateBundleText(current)).toEqual({ text: current, changes: [], unconverted: [] });
    const other = `apiVersion: goondan.ai/v1
kind: Connector
metadata: { name: hook }
spec:
  type: webhook
  runtime: node
  triggers: [{ type: http, endpoint: { path: /hook } }]
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: hook-desk }
spec:
  connectorRef: hook
  ingress:
    - match: { event: ping }
`;
    const result = migrateBundleText(other);
    expect(result.changes.map((change) => change.message)).toEqual(['reference "hook" → "Connector/hook"']);
    expect(result.unconverted.map((note) => [note.resource, note.path, note.line])).toEqual([
      ['Connector/hook', 'spec.type', 5],
      ['Connector/hook', 'spec.runtime', 6],
      ['Connector/hook', 'spec.triggers', 7],
      ['Connector/hook', 'spec', 5],
      ['Connection/hook-desk', 'spec.ingress', 15],
    ]);
    expect(result.unconverted[0]?.message).toBe(
      'spec.type is not a field of a Connector: rewrite it by hand in the shape of docs/connectors.md (fields: entry, events)',
    );
    expect(result.unconverted[3]?.message).toStartWith('spec.entry is missing');
  });
});
