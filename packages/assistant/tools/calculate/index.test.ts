import { describe, expect, test } from 'bun:test';
import { tmpdir } from 'node:os';
import { createTestToolContext } from '@goondan/core/testing';
import { MAX_EXPRESSION_CHARS } from '../../src/calculate/safe-math.ts';
import { handlers } from './index.ts';

const ctx = createTestToolContext({ workdir: tmpdir() });
const run = (expression: string) => handlers.eval(ctx, { expression });

async function refusal(expression: string): Promise<{ code: string; message: string; suggestion: string }> {
  try {
    const result = await run(expression);
    return { code: 'none', message: JSON.stringify(result), suggestion: '' };
  } catch (error) {
    const { code, message, suggestion } = error as { code: string; message: string; suggestion: string };
    return { code, message, suggestion };
  }
}

describe('calculate__eval', () => {
  test.each([
    ['1 + 2 * 3', '7'],
    ['2^10', '1024'],
    ['(1 + 2) * 3 / 4', '2.25'],
    ['sqrt(2)', '1.4142135623731'],
    ['10!', '3628800'],
    ['sin(pi / 2)', '1'],
    ['12 % 5', '2'],
    ['50%', '0.5'],
    ['0.1 + 0.2', '0.3'],
    ['mean(1, 2, 3, 4)', '2.5'],
    ['round(2.567, 2)', '2.57'],
    ['5 inch to cm', '12.7 cm'],
    ['1/0', 'Infinity'],
    ['det([[1, 2], [3, 4]])', 'refused'],
  ])('%s = %s', async (expression, expected) => {
    if (expected === 'refused') {
      expect((await refusal(expression)).code).toBe('E_TOOL_INVALID_ARGS');
      return;
    }
    expect((await run(expression)).result).toBe(expected);
  });

  test('a finite number result also carries its value', async () => {
    expect(await run('6 * 7')).toEqual({ expression: '6 * 7', result: '42', value: 42 });
    expect(await run('9^9^9')).toEqual({ expression: '9^9^9', result: 'Infinity' });
  });

  // The injection corpus: code execution, name lookups and definitions are refused; size and time are bounded.
  const corpus = [
    'import({}, {override: true})',
    'import("fs")',
    'evaluate("1 + 1")',
    'parse("1")',
    'compile("1").evaluate()',
    'simplify("x + x")',
    'derivative("x^2", "x")',
    'resolve("x", {x: 1})',
    'createUnit("foo")',
    'reviver()',
    '[].constructor.constructor("return process")()',
    'cos.constructor("return process")()',
    'sin["constructor"]',
    '"abc".constructor',
    'a = 1',
    'f(x) = x; f(2)',
    '1; 2',
    '{a: 1}.a',
    '1:1e9',
    'zeros(10000, 10000)',
    'range(1, 1e9)',
    'ones(1e5)',
    'combinations(1e15, 5e14)',
    'isPrime(1e15 + 37)',
    'map([1,2], f)',
    'process',
    'this',
    'globalThis',
    'x + 1',
    '"a string"',
    'unit("5 cm")',
    `[${Array.from({ length: 401 }, () => '1').join(',')}]`,
    '1 +'.repeat(MAX_EXPRESSION_CHARS),
    `${'('.repeat(40)}1${')'.repeat(40)}`,
    '',
  ];
  test.each(corpus.map((expression) => [expression.slice(0, 60), expression]))(
    'refuses %s with E_TOOL_INVALID_ARGS and a suggestion',
    async (_short, expression) => {
      const refused = await refusal(expression);
      expect(refused.code).toBe('E_TOOL_INVALID_ARGS');
      expect(refused.suggestion.length).toBeGreaterThan(20);
    },
  );

  test('huge exponents and factorials are bounded: they end as Infinity, at once', async () => {
    for (const expression of [
      '9^9^9',
      'factorial(1000000)',
      '1e308 * 10',
      '170! * 171!',
      '[[1, 2], [3, 4]]^1000000000',
    ])
      expect((await run(expression)).result).toMatch(/Infinity|NaN/);
  });

  test('a matrix to a power beyond 2^31 is the true power, not the power of its low 32 bits', async () => {
    expect((await run('[[2]]^(2^32 + 1)')).result).toBe('[[Infinity]]');
    expect((await run('[[1, 1], [1, 0]]^1e15')).result).toBe('[[Infinity, Infinity], [Infinity, Infinity]]');
    expect((await run('pow([[0.5]], 2^40)')).result).toBe('[[0]]');
    expect((await run('[[1, 0], [0, 1]]^1e308')).result).toBe('[[1, 0], [0, 1]]');
    expect((await run('[[2]]^-(2^32)')).result).toBe('[[0]]');
    expect((await run('[[1, 1], [1, 0]]^10')).result).toBe('[[89, 55], [55, 34]]');
    expect((await refusal('[[1, 2]]^(2^40)')).message).toContain('must be square');
    expect((await refusal('[[0, 0], [0, 0]]^-(2^32)')).message).toContain('determinant is zero');
  });

  test('deg2rad, which mathjs does not have, is refused as unavailable like any unknown function', async () => {
    expect((await refusal('deg2rad(180)')).message).toContain('not available in the calculator');
  });

  test('the locked instance still refuses evaluate after the checked path ran (no name leaks back)', async () => {
    await run('1 + 1');
    expect((await refusal('evaluate("2")')).message).toContain("'evaluate'");
  });
});
