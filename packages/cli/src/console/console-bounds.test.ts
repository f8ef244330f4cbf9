import { describe, expect, test } from 'bun:test';
import {
  APPROVAL_ARGS_CHARS,
  AUDIT_VALUE_CHARS,
  boundContent,
  FIELDS,
  fitPage,
  MESSAGE_CHARS,
  NAME_CHARS,
  PAGE_CHARS,
  PARTS,
  shownApproval,
  shownAuditEntry,
  TEXT_CHARS,
  VALUE_CHARS,
} from './console-bounds.ts';

const size = (value: unknown) => JSON.stringify(value).length;

describe('boundContent', () => {
  test('short content is shown whole', () => {
    const parts = [
      { type: 'text', text: 'hello' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'calc__add', input: { a: 1, b: 2 } },
    ];
    expect(boundContent('hi')).toEqual({ content: 'hi', cutChars: 0 });
    expect(boundContent(parts)).toEqual({ content: parts, cutChars: 0 });
    expect(boundContent({ any: 'object' })).toEqual({ content: { any: 'object' }, cutChars: 0 });
  });

  test('a 10 MB string, a huge text part, tool input and output, a long tool name are cut, and the cut counted', () => {
    const whole = boundContent('x'.repeat(10_000_000));
    expect(whole.content).toBe('x'.repeat(TEXT_CHARS));
    expect(whole.cutChars).toBe(10_000_000 - TEXT_CHARS);

    const shown = boundContent([
      { type: 'text', text: 't'.repeat(1_000_000) },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'n'.repeat(5000), input: { data: 'i'.repeat(1_000_000) } },
      { type: 'tool-result', toolCallId: 'c1', toolName: 'bash__exec', output: 'o'.repeat(1_000_000) },
    ]);
    const [text, call, result] = shown.content as Record<string, unknown>[];
    expect(text!.text).toBe('t'.repeat(TEXT_CHARS));
    expect((call!.toolName as string).length).toBe(NAME_CHARS);
    expect(call!.input).toMatchObject({ truncated: true, originalChars: size({ data: 'i'.repeat(1_000_000) }) });
    expect((call!.input as { preview: string }).preview.length).toBe(VALUE_CHARS);
    expect(result!.output).toBe('o'.repeat(VALUE_CHARS));
    expect(shown.cutChars).toBeGreaterThan(2_900_000);
    expect(size(shown.content)).toBeLessThan(MESSAGE_CHARS + 1000);
  });

  test('many parts, parts of many fields, and field names of a page are bounded too', () => {
    const manyParts = boundContent(Array.from({ length: 10_000 }, () => ({ type: 'text', text: 'p'.repeat(1000) })));
    expect((manyParts.content as unknown[]).length).toBe(PARTS);
    expect(size(manyParts.content)).toBeLessThan(MESSAGE_CHARS + PARTS * 100);
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`f${index}`, index]));
    const [part] = boundContent([{ type: 'file', ...wide }]).content as Record<string, unknown>[];
    expect(Object.keys(part!).length).toBe(FIELDS);
    const [named] = boundContent([{ type: 'file', ['k'.repeat(100_000)]: 1 }]).content as Record<string, unknown>[];
    expect(named).toEqual({ type: 'file' });
  });
});

describe('fitPage', () => {
  test('keeps the newest messages that fit in PAGE_CHARS, at least one', () => {
    const messages = Array.from({ length: 100 }, (_, index) => ({ id: `m${index}`, text: 'y'.repeat(50_000) }));
    const { kept, dropped } = fitPage(messages);
    expect(kept.at(-1)!.id).toBe('m99');
    expect(dropped + kept.length).toBe(100);
    expect(size(kept)).toBeLessThanOrEqual(PAGE_CHARS + kept.length);
    expect(size(kept) + 50_000).toBeGreaterThan(PAGE_CHARS);
    expect(fitPage([{ id: 'huge', text: 'z'.repeat(PAGE_CHARS * 2) }]).kept).toHaveLength(1);
    expect(fitPage([{ id: 'a' }, { id: 'b' }])).toEqual({ kept: [{ id: 'a' }, { id: 'b' }], dropped: 0 });
  });
});

describe('shownApproval', () => {
  test('arguments of megabytes are cut to the start of their JSON, with how much is left out; short ones stay', () => {
    const small = { id: 'a', args: { command: 'ls' }, decidedBy: null };
    expect(shownApproval(small)).toEqual(small);
    const big = shownApproval({ id: 'b', args: { command: 'z'.repeat(1_000_000) }, decidedBy: 'p'.repeat(10_000) });
    expect(big.args).toMatchObject({ truncated: true, originalChars: 1_000_014 });
    expect((big.args as unknown as { preview: string }).preview).toHaveLength(APPROVAL_ARGS_CHARS);
    expect(big.argsCutChars).toBe(1_000_014 - APPROVAL_ARGS_CHARS);
    expect(big.decidedBy!.length).toBe(NAME_CHARS + 1);
  });
});

describe('shownAuditEntry', () => {
  test("a tool name, rule, approver and code are cut to a line; arguments and output past the store's cap are cut", () => {
    const entry = {
      toolName: 'n'.repeat(100_000),
      rule: 'r'.repeat(1000),
      errorCode: `E_${'X'.repeat(1000)}`,
      args: { a: 'a'.repeat(100_000) },
      output: 'small',
      approval: { by: 'b'.repeat(1000), reason: 'why' },
    };
    const shown = shownAuditEntry(entry);
    expect(shown.toolName).toHaveLength(NAME_CHARS + 1);
    expect(shown.rule).toHaveLength(NAME_CHARS + 1);
    expect(shown.errorCode).toHaveLength(65);
    expect(shown.args).toMatchObject({ truncated: true, originalChars: 100_008 });
    expect(JSON.stringify(shown.args).length).toBeLessThan(AUDIT_VALUE_CHARS + 200);
    expect(shown.output).toBe('small');
    expect(shown.approval).toEqual({ by: `${'b'.repeat(NAME_CHARS)}…`, reason: 'why' });
    const plain = { toolName: 'calc__add', rule: null, errorCode: null, args: { a: 1 }, output: 3, approval: null };
    expect(shownAuditEntry(plain)).toEqual(plain);
  });
});
