import { GoondanError } from '@goondan/core/errors';
import type { MathJsInstance, MathNode } from 'mathjs';

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_CHARS = 500;
/** Deepest nesting of brackets accepted (the parser recurses per level). */
export const MAX_NESTING = 32;
/** Most numbers a matrix literal may hold. */
export const MAX_MATRIX_ELEMENTS = 400;

/**
 * Functions an expression may call: arithmetic, rounding, trigonometry, logarithms and statistics over the given
 * values. Nothing that builds values of a size the input chooses (zeros, range), loops a count the input
 * chooses (combinations, isPrime), reads or defines names (evaluate, import, createUnit), or takes callbacks (map).
 */
const allowedFunctions = new Set(
  `abs sqrt cbrt exp expm1 log log10 log2 log1p pow nthRoot round floor ceil fix sign mod hypot gcd lcm
   factorial gamma min max mean median sum prod std variance mode
   sin cos tan sec csc cot asin acos atan atan2 sinh cosh tanh asinh acosh atanh
   to number`
    .split(/\s+/)
    .filter(Boolean),
);
const allowedConstants = new Set(['pi', 'e', 'tau', 'phi', 'Infinity', 'NaN', 'true', 'false']);

function refuse(message: string, suggestion?: string): never {
  throw new GoondanError('E_TOOL_INVALID_ARGS', message, {
    suggestion:
      suggestion ??
      'Write plain arithmetic: numbers, + - * / ^ % !, parentheses, functions such as sqrt, sin, log, round, mean, and unit conversions such as "5 inch to cm".',
  });
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * A square matrix to an integer power of more than 2^31 − 1 (magnitude). mathjs halves the exponent with `>>= 1`,
 * which keeps only its low 32 bits (`[[2]]^(2^32 + 1)` came out as 2); here it is halved exactly, so the answer is
 * the true power (entries end as Infinity or 0 like any other huge power) in at most about 1,024 squarings.
 */
function matrixPower(math: MathJsInstance, pow: MathJsInstance['pow'], x: unknown, y: number): unknown {
  if (!Number.isInteger(y)) return pow(x as number, y); // mathjs's own error: b must be an integer
  const multiply = math.multiply as (a: unknown, b: unknown) => unknown;
  pow(x as number, 1); // mathjs's errors for a matrix that is not square
  let base = y < 0 ? (math.inv as (a: unknown) => unknown)(x) : x; // a singular one: "determinant is zero"
  let result: unknown; // not the identity: its zeros times an Infinity entry would make NaN
  for (let n = Math.abs(y); n >= 1; n = Math.floor(n / 2)) {
    if (n % 2 === 1) result = result === undefined ? base : multiply(base, result);
    base = multiply(base, base);
  }
  return result;
}

let instance: Promise<{ math: MathJsInstance; parse: MathJsInstance['parse'] }> | undefined;

/**
 * A mathjs instance locked down as mathjs's security notes describe: the functions that parse, evaluate, import or
 * define things are replaced by ones that throw, after keeping a private `parse` for the checked entry point.
 * mathjs is imported on first use (the CLI imports every Tool entry on start).
 */
function lockedMath() {
  instance ??= import('mathjs').then(({ all, create }) => {
    const math = create(all as NonNullable<typeof all>, { number: 'number', precision: 64 });
    const parse = math.parse;
    const disabled = (name: string) => () => {
      throw new Error(`Function ${name} is disabled`);
    };
    const names = [
      'import',
      'createUnit',
      'reviver',
      'evaluate',
      'parse',
      'compile',
      'simplify',
      'simplifyConstant',
      'simplifyCore',
      'derivative',
      'resolve',
      'rationalize',
      'parser',
    ];
    const pow = math.pow;
    math.import(
      {
        ...Object.fromEntries(names.map((name) => [name, disabled(name)])),
        pow: (x: unknown, y: unknown) =>
          (math.isMatrix(x) || Array.isArray(x)) && typeof y === 'number' && Math.abs(y) > INT32_MAX
            ? matrixPower(math, pow, x, y)
            : pow(x as number, y as number),
      },
      { override: true },
    );
    return { math, parse };
  });
  return instance;
}

function checkShape(expression: string): void {
  if (expression.trim() === '') refuse('The expression is empty.');
  if (expression.length > MAX_EXPRESSION_CHARS)
    refuse(
      `The expression is ${expression.length} characters; at most ${MAX_EXPRESSION_CHARS} are accepted.`,
      'Split the calculation into smaller steps and combine their results.',
    );
  let depth = 0;
  for (const char of expression) {
    if (char === '(' || char === '[' || char === '{') depth++;
    else if (char === ')' || char === ']' || char === '}') depth--;
    if (depth > MAX_NESTING)
      refuse(`Brackets nest deeper than ${MAX_NESTING} levels.`, 'Simplify the expression or compute it in steps.');
  }
}

/** Refuses every node that is not arithmetic on literals, known constants, units and allowed functions. */
function checkTree(math: MathJsInstance, root: MathNode): void {
  let elements = 0;
  root.traverse((node, _path, parent) => {
    switch (node.type) {
      case 'ConstantNode': {
        const value = (node as unknown as { value: unknown }).value;
        if (typeof value !== 'number' && typeof value !== 'boolean') refuse('Only numbers are accepted as literals.');
        return;
      }
      case 'OperatorNode':
      case 'ParenthesisNode':
      case 'ConditionalNode':
        return;
      case 'ArrayNode':
        elements += (node as unknown as { items: unknown[] }).items.length;
        if (elements > MAX_MATRIX_ELEMENTS) refuse(`Matrices are limited to ${MAX_MATRIX_ELEMENTS} numbers.`);
        return;
      case 'FunctionNode': {
        const fn = (node as unknown as { fn: MathNode }).fn;
        const name = fn.type === 'SymbolNode' ? (fn as unknown as { name: string }).name : '';
        if (!allowedFunctions.has(name))
          refuse(`Function '${name || fn.toString()}' is not available in the calculator.`);
        return;
      }
      case 'SymbolNode': {
        const name = (node as unknown as { name: string }).name;
        const isCallee = parent?.type === 'FunctionNode' && (parent as unknown as { fn: MathNode }).fn === node;
        if (isCallee || allowedConstants.has(name)) return;
        if (math.Unit.isValuelessUnit(name)) return;
        refuse(`Unknown name '${name}'.`);
        return;
      }
      default:
        refuse(
          `${node.type.replace(/Node$/, '')} expressions (assignments, property access, objects, ranges, several statements) are not accepted.`,
        );
    }
  });
}

/** The checked result of an expression, formatted like a calculator (14 significant digits). */
export async function calculate(expression: string): Promise<{ expression: string; result: string; value?: number }> {
  if (typeof expression !== 'string') refuse('expression must be a string.');
  checkShape(expression);
  const { math, parse } = await lockedMath();
  let tree: MathNode;
  try {
    tree = parse(expression);
  } catch (error) {
    return refuse(`Cannot read the expression: ${(error as Error).message}.`);
  }
  checkTree(math, tree);
  let value: unknown;
  try {
    value = tree.compile().evaluate({});
  } catch (error) {
    return refuse(`Cannot calculate it: ${(error as Error).message}.`);
  }
  if (typeof value === 'function' || value === undefined) refuse('The expression does not give a value.');
  const result = math.format(value as number, { precision: 14, lowerExp: -9, upperExp: 21 });
  return typeof value === 'number' && Number.isFinite(value) ? { expression, result, value } : { expression, result };
}
