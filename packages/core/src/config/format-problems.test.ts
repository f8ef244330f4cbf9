import { describe, expect, test } from 'bun:test';
import { createProblem } from './create-problem.ts';
import { formatProblems } from './format-problems.ts';

const source = 'apiVersion: goondan.ai/v1\nkind: Tool\nspec:\n  errorMessageLimit: big\n';
const problem = createProblem({
  code: 'E_RESOURCE_INVALID',
  message: 'spec.errorMessageLimit must be integer (got string "big")',
  location: { file: 'goondan.yaml', line: 4, column: 22 },
  path: 'spec.errorMessageLimit',
});

describe('formatProblems', () => {
  test('shows file:line:col, code and message, the source line with a caret under the column, suggestion and help', () => {
    const text = formatProblems([problem], { color: false, readFile: () => source });
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'goondan.yaml:4:22  E_RESOURCE_INVALID  spec.errorMessageLimit must be integer (got string "big")',
    );
    expect(lines[1]).toBe('  4 |   errorMessageLimit: big');
    expect(lines[2]).toBe(`    | ${' '.repeat(21)}^`);
    // The caret sits under column 22 of the source line, which starts after the gutter.
    expect(lines[2]?.indexOf('^')).toBe((lines[1]?.indexOf('|') ?? 0) + 2 + 21);
    expect(lines[3]).toBe('  suggestion: Match the resource shape described in docs/resources.md for this kind.');
    expect(lines[4]).toBe('  help: docs/errors/E_RESOURCE_INVALID.md');
    expect(text).not.toContain('\x1b[');
  });

  test('uses ANSI colours only when asked', () => {
    expect(formatProblems([problem], { color: true, readFile: () => source })).toContain(
      '\x1b[31mE_RESOURCE_INVALID\x1b[0m',
    );
  });

  test('leaves the source line out when the file cannot be read', () => {
    const throwing = () => {
      throw new Error('gone');
    };
    for (const readFile of [() => undefined, throwing]) {
      const lines = formatProblems([problem], { color: false, readFile }).split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[1]).toStartWith('  suggestion:');
    }
  });

  test('shows the link helpLink gives for the code instead of helpUrl (a front end with hosted docs)', () => {
    const text = formatProblems([problem], {
      color: false,
      readFile: () => source,
      helpLink: (code) => `https://docs.example.test/errors/${code}.md`,
    });
    expect(text.split('\n')[4]).toBe('  help: https://docs.example.test/errors/E_RESOURCE_INVALID.md');
  });

  test('keeps tabs before the column so the caret lines up, and separates problems with a blank line', () => {
    const tabbed = { ...problem, line: 1, column: 3 };
    const text = formatProblems([tabbed, tabbed], { color: false, readFile: () => '\t\tx: 1' });
    expect(text.split('\n')[2]).toBe('    | \t\t^');
    expect(text.split('\n\n')).toHaveLength(2);
  });

  test('cuts a very long line to a window around the column', () => {
    const long = { ...problem, line: 1, column: 5000 };
    const lines = formatProblems([long], {
      color: false,
      readFile: () => `${'a'.repeat(4999)}X${'b'.repeat(5000)}`,
    }).split('\n');
    expect(lines[1]?.length).toBeLessThan(200);
    expect(lines[1]?.[lines[2]?.indexOf('^') ?? 0]).toBe('X');
  });
});
