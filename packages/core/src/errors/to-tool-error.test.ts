import { describe, expect, test } from 'bun:test';
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
