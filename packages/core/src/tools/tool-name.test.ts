import { describe, expect, test } from 'bun:test';
import { buildToolName, checkNamePart, parseToolName, providerToolNamePattern } from './tool-name.ts';

describe('tool names (spec §2.2, §5)', () => {
  test('spec §2.2.1: the exposed name is {resource}__{export}', () => {
    expect(buildToolName('file-system', 'read')).toBe('file-system__read');
  });

  test('spec §5.3: parse splits at the first "__" and build reverses it', () => {
    expect(parseToolName('http-fetch__get')).toEqual({ resourceName: 'http-fetch', exportName: 'get' });
    expect(parseToolName('bash')).toBeNull();
    const parsed = parseToolName(buildToolName('a-b', 'c_d'))!;
    expect(buildToolName(parsed.resourceName, parsed.exportName)).toBe('a-b__c_d');
  });

  test('spec §2.2.3: resource and export names must not contain "__"', () => {
    expect(checkNamePart('bad__name')).toContain('"__"');
    expect(checkNamePart('good_name')).toBeNull();
  });

  test('spec §6.2: only lowercase letters, digits, "_" and "-" are allowed', () => {
    expect(checkNamePart('Upper')).toContain('lowercase');
    expect(checkNamePart('with space')).toContain('lowercase');
    expect(checkNamePart('list-channels')).toBeNull();
    expect(checkNamePart('post_message')).toBeNull();
    expect(checkNamePart('')).toBe('is empty');
  });

  test('a leading or trailing "_" is refused because the full name would parse ambiguously', () => {
    expect(checkNamePart('tail_')).not.toBeNull();
    expect(checkNamePart('_head')).not.toBeNull();
  });

  test('the strictest provider rule allows at most 64 characters', () => {
    expect(providerToolNamePattern.test(buildToolName('a'.repeat(30), 'b'.repeat(32)))).toBe(true);
    expect(providerToolNamePattern.test(buildToolName('a'.repeat(31), 'b'.repeat(32)))).toBe(false);
  });
});
