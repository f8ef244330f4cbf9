import { describe, expect, test } from 'bun:test';
import { Document, parseAllDocuments, Scalar, type YAMLSeq } from 'yaml';
import { writeEditedYaml } from './write-edited-yaml.ts';

/** A bundle with what re-rendering used to change: folded blocks, flow maps and lists, comments, a BOM, CRLF. */
const lines = [
  '\uFEFF# The assistant (this comment stays)',
  'apiVersion: goondan.ai/v1',
  'kind: Agent',
  'metadata:',
  '  name: helper   # its name',
  'spec:',
  '  modelConfig: { modelRef: Model/demo }',
  '  prompt:',
  '    system: >-',
  '      You are a personal assistant. Keep the errands on the board,',
  '      and check the date first.',
  '  tools: [Tool/datetime, Tool/kanban]',
  '  extensions:',
  '    - ref: Extension/mcp',
  '      config:',
  '        servers:',
  '          - name: files',
  '            command: npx',
  '            args: [ -y, "@mcp/files" ]',
  '---',
  '# The scripted model',
  'kind: Model',
  'metadata: { name: demo }',
  'spec:',
  '  script:',
  '    - text: >-',
  '        Folded text',
  '        over two lines.',
  '      toolCalls:',
  '        - name: kanban__create_board',
  '          args: { name: Errands, columns: [To Do, Doing, Done] }',
  '        - name: kanban__add_card',
  '          args:',
  '            {',
  '              board_id: Errands,',
  '              labels: [shopping],',
  '            }',
  '',
];
const source = lines.join('\r\n');

function edited(edit: (documents: Document[]) => void, text = source): string {
  const documents = parseAllDocuments(text) as Document[];
  edit(documents);
  return writeEditedYaml({ source: text, documents });
}

/** `source` with lines `from`..`to` (0-based, `to` excluded) replaced. */
function withLines(from: number, to: number, replacement: string[]): string {
  return [...lines.slice(0, from), ...replacement, ...lines.slice(to)].join('\r\n');
}

describe('writeEditedYaml', () => {
  test('nothing edited: the text comes back byte for byte', () => {
    expect(edited(() => {})).toBe(source);
  });

  test('a prompt of several lines replaces a folded one; every other byte stays', () => {
    const text = edited(([agent]) => {
      const node = agent!.getIn(['spec', 'prompt', 'system'], true) as Scalar;
      node.value = 'You are a personal assistant.\nBe terse.\n';
      node.type = Scalar.BLOCK_LITERAL;
    });
    expect(text).toBe(withLines(8, 11, ['    system: |', '      You are a personal assistant.', '      Be terse.']));
  });

  test('a new label creates its mapping at the end of metadata; a quoted value where plain would not read back', () => {
    const text = edited(([agent]) => {
      agent!.setIn(['metadata', 'labels', 'settings.assistant.goondan.ai/verbose'], 'true');
    });
    expect(text).toBe(withLines(5, 5, ['  labels:', '    settings.assistant.goondan.ai/verbose: "true"']));
  });

  test('flow lists take a new item and lose one in their own spacing', () => {
    const text = edited(([agent]) => {
      agent!.addIn(['spec', 'tools'], 'Tool/memory');
      (agent!.getIn(['spec', 'extensions', 0, 'config', 'servers', 0, 'args'], true) as YAMLSeq).items.splice(0, 1);
    });
    expect(text).toBe(
      withLines(11, 19, [
        '  tools: [Tool/datetime, Tool/kanban, Tool/memory]',
        ...lines.slice(12, 18),
        '            args: [ "@mcp/files" ]',
      ]),
    );
  });

  test('a block sequence takes a new entry after its last; removing its only entry leaves []', () => {
    const added = edited(([agent]) => {
      const servers = agent!.getIn(['spec', 'extensions', 0, 'config', 'servers'], true) as YAMLSeq;
      servers.items.push(agent!.createNode({ name: 'web', command: 'node', args: ['server.js'] }));
    });
    expect(added).toBe(
      withLines(19, 19, [
        '          - name: web',
        '            command: node',
        '            args:',
        '              - server.js',
      ]),
    );
    const removed = edited(([agent]) => {
      agent!.deleteIn(['spec', 'extensions', 0, 'config', 'servers', 0]);
    });
    expect(removed).toBe(withLines(15, 19, ['        servers:', '          []']));
  });

  test('a value set in a flow map changes that value only; a replaced list keeps the flow style', () => {
    const text = edited((documents) => {
      const model = documents[1]!;
      model.setIn(['spec', 'script', 0, 'toolCalls', 0, 'args', 'name'], 'Chores');
      model.setIn(['spec', 'script', 0, 'toolCalls', 1, 'args', 'labels'], ['shopping', 'weekly']);
    });
    expect(text).toBe(
      withLines(30, 36, [
        '          args: { name: Chores, columns: [To Do, Doing, Done] }',
        ...lines.slice(31, 35),
        '              labels: [shopping, weekly],',
      ]),
    );
  });

  test('a new document is appended after a --- line, in the file line ending', () => {
    const text = edited((documents) => {
      const created = new Document({ apiVersion: 'goondan.ai/v1', kind: 'Agent', metadata: { name: 'cook' } });
      documents.push(created);
    });
    expect(text).toBe(`${source}---\r\napiVersion: goondan.ai/v1\r\nkind: Agent\r\nmetadata:\r\n  name: cook\r\n`);
  });

  test('a flow map turned into a block one is rewritten whole, the rest stays', () => {
    const text = edited(([agent]) => {
      const model = agent!.getIn(['spec', 'modelConfig'], true) as { flow: boolean };
      model.flow = false;
      agent!.setIn(['spec', 'modelConfig', 'modelRef'], 'Model/other');
    });
    expect(text).toBe(withLines(6, 7, ['  modelConfig:', '    modelRef: Model/other']));
  });
});
