import { describe, expect, test } from 'bun:test';
import { Composer, CST, type Document, Parser } from 'yaml';
import { deleteInSource, setInSource, type YamlPath } from './edit-yaml-source.ts';

/** `text` after the edits, made to the tokens of its first document and printed back from them. */
function edited(text: string, ...edits: [YamlPath, string | null][]): string {
  const tokens = [...new Parser().parse(text)];
  const [document] = [...new Composer({ keepSourceTokens: true }).compose(tokens)] as Document.Parsed[];
  for (const [path, value] of edits) {
    if (value === null) deleteInSource(document!, path);
    else setInSource(document!, path, value);
  }
  return tokens.map((part) => CST.stringify(part)).join('');
}

describe('setInSource', () => {
  test('changes only the value: its comment, spacing, quotes, a BOM and CRLF stay', () => {
    const text = '\uFEFFkind: Tool\r\nspec:\r\n  exports:\r\n    - name: "a.b"   # old\r\n  required: [name]\r\n';
    expect(edited(text, [['spec', 'exports', 0, 'name'], 'b'])).toBe(
      '\uFEFFkind: Tool\r\nspec:\r\n  exports:\r\n    - name: "b"   # old\r\n  required: [name]\r\n',
    );
  });

  test('quotes a plain value that would read as another type', () => {
    expect(edited('name: x\n', [['name'], 'true'])).toBe('name: "true"\n');
    expect(edited('name: x\n', [['name'], '12'])).toBe('name: "12"\n');
  });

  test('a missing key is added first, in the mapping layout and line ending', () => {
    expect(edited('# c\r\nkind: Tool\r\nspec: {}\r\n', [['apiVersion'], 'goondan.ai/v1'])).toBe(
      '# c\r\napiVersion: goondan.ai/v1\r\nkind: Tool\r\nspec: {}\r\n',
    );
    expect(edited('{ kind: Tool, spec: {} }\n', [['apiVersion'], 'goondan.ai/v1'])).toBe(
      '{ apiVersion: goondan.ai/v1, kind: Tool, spec: {} }\n',
    );
  });
});

describe('deleteInSource', () => {
  test('removes a key line and nothing else; the comment above it stays', () => {
    const text = 'spec:\r\n  entry: ./x.ts\r\n  # v1\r\n  runtime: node   # v1 only\r\n  tags: [a]\r\n';
    expect(edited(text, [['spec', 'runtime'], null])).toBe('spec:\r\n  entry: ./x.ts\r\n  # v1\r\n  tags: [a]\r\n');
  });

  test('the first key, the last key, and the only key of a block mapping', () => {
    expect(edited('spec:\n  runtime: node\n  entry: x\n', [['spec', 'runtime'], null])).toBe('spec:\n  entry: x\n');
    expect(edited('spec:\n  entry: x\n  runtime: node\n', [['spec', 'runtime'], null])).toBe('spec:\n  entry: x\n');
    expect(edited('spec:\n  runtime: node\nkind: Tool\n', [['spec', 'runtime'], null])).toBe(
      'spec:\n  {}\nkind: Tool\n',
    );
    expect(edited('tools:\n  - apiVersion: v\n    kind: Tool\n', [['tools', 0, 'apiVersion'], null])).toBe(
      'tools:\n  - kind: Tool\n',
    );
  });

  test('the first, a middle, the last and the only key of a flow mapping', () => {
    const path = ['ref', 'apiVersion'];
    expect(edited('ref: { apiVersion: v, kind: Tool }\n', [path, null])).toBe('ref: { kind: Tool }\n');
    expect(edited('ref: {kind: Tool, apiVersion: v, name: a}\n', [path, null])).toBe('ref: {kind: Tool, name: a}\n');
    expect(edited('ref: { kind: Tool, apiVersion: v }\n', [path, null])).toBe('ref: { kind: Tool }\n');
    expect(edited('ref: { apiVersion: v }\n', [path, null])).toBe('ref: {}\n');
  });
});
