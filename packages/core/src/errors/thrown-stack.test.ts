import { describe, expect, test } from 'bun:test';
import { keepThrownStack, thrownStackOf } from './thrown-stack.ts';
import { toToolError } from './to-tool-error.ts';

describe('thrownStackOf', () => {
  test('gives the stack of the Error a ToolError was made from, which is not part of the error itself', () => {
    const thrown = new Error('kaboom');
    const error = toToolError(thrown);
    expect(thrownStackOf(error)).toContain('thrown-stack.test.ts');
    expect(JSON.stringify(error)).not.toContain('thrown-stack.test.ts');
  });

  test('nothing for a thrown string', () => {
    expect(thrownStackOf(keepThrownStack(toToolError('plain'), 'plain'))).toBeUndefined();
  });
});
