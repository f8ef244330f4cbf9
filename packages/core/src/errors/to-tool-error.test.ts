import { describe, expect, test } from 'bun:test';
import { forgetSecretValues, rememberSecretValue } from '../permissions/secret-registry.ts';
import { GoondanError } from './goondan-error.ts';
import { toToolError, truncateErrorMessage } from './to-tool-error.ts';

describe('error results (spec §10.3, §10.4)', () => {
  test('spec §10.4: a message over the limit keeps limit characters, suffix included', () => {
    const cut = truncateErrorMessage('a'.repeat(100), 40);
    expect(cut).toHaveLength(40);
    expect(cut).toBe(`${'a'.repeat(25)}... (truncated)`);
    expect(truncateErrorMessage('short', 40)).toBe('short');
  });

  test('a GoondanError keeps its code, name and suggestion, and gets a help link', () => {
    const error = toToolError(new GoondanError('E_FILE_NOT_FOUND', 'No file x.txt'));
    expect(error).toEqual({
      code: 'E_FILE_NOT_FOUND',
      name: 'FileNotFoundError',
      message: 'No file x.txt',
      suggestion: expect.stringContaining('file-system__list'),
      helpUrl: 'docs/errors/E_FILE_NOT_FOUND.md',
    });
  });

  test('known secret values are masked before the message is cut, so no part of one remains', () => {
    rememberSecretValue('Zq8vXw3kLm9pRt2y');
    try {
      const thrown = new Error('Incorrect API key provided: Zq8vXw3kLm9pRt2y. Find your key at the console.');
      expect(toToolError(thrown).message).toBe('Incorrect API key provided: [REDACTED]. Find your key at the console.');
      // Cut first, the limit would fall inside the key and keep its first 8 characters.
      expect(toToolError(thrown, { limit: 51 }).message).toBe('Incorrect API key provided: [REDACTE... (truncated)');
      const coded = new GoondanError('E_TOOL', 'server said Zq8vXw3kLm9pRt2y', { suggestion: 'drop Zq8vXw3kLm9pRt2y' });
      expect(toToolError(coded)).toMatchObject({ message: 'server said [REDACTED]', suggestion: 'drop [REDACTED]' });
    } finally {
      forgetSecretValues();
    }
  });

  test('a Node-style error code stays visible in the message', () => {
    const thrown = Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' });
    expect(toToolError(thrown).message).toBe('connect refused (ECONNREFUSED)');
  });

  test('GOONDAN_HELP_BASE_URL points help links at a hosted copy of the docs', () => {
    process.env.GOONDAN_HELP_BASE_URL = 'https://docs.example.test/errors';
    try {
      expect(toToolError(new Error('x')).helpUrl).toBe('https://docs.example.test/errors/E_TOOL.md');
    } finally {
      delete process.env.GOONDAN_HELP_BASE_URL;
    }
  });
});
