import { describe, expect, test } from 'bun:test';
import { GoondanError } from '../errors/goondan-error.ts';
import { parseScriptedSteps } from './parse-scripted-steps.ts';

function problem(script: unknown): string {
  try {
    parseScriptedSteps(script);
  } catch (error) {
    if (error instanceof GoondanError && error.code === 'E_MODEL_CONFIG') return error.message;
    throw error;
  }
  throw new Error('expected E_MODEL_CONFIG');
}

describe('parseScriptedSteps', () => {
  test('reads steps from YAML data, keeping string args verbatim', () => {
    expect(
      parseScriptedSteps([
        { text: 'hi', delayMs: 5 },
        {
          toolCalls: [
            { name: 'greet__hello', args: { name: 'Ada' } },
            { name: 'greet__hello', args: '{"bad', id: 'c2' },
          ],
        },
        { error: 'down' },
      ]),
    ).toEqual([
      { text: 'hi', delayMs: 5 },
      {
        toolCalls: [
          { name: 'greet__hello', args: { name: 'Ada' } },
          { name: 'greet__hello', args: '{"bad', id: 'c2' },
        ],
      },
      { error: 'down' },
    ]);
    expect(parseScriptedSteps(undefined)).toEqual([]);
  });

  test('refuses wrong shapes with E_MODEL_CONFIG naming the field path', () => {
    expect(problem({})).toContain('spec.script must be a list');
    expect(problem([{ txt: 'typo' }])).toContain('spec.script[0].txt is not a script field');
    expect(problem([{ toolCalls: [{ args: {} }] }])).toContain(
      'spec.script[0].toolCalls[0].name must be a non-empty string',
    );
    expect(problem([{ text: 'a' }, { toolCalls: [{ name: 'x', args: 3 }] }])).toContain(
      'spec.script[1].toolCalls[0].args',
    );
    expect(problem([{ delayMs: -1 }])).toContain('spec.script[0].delayMs');
  });
});
