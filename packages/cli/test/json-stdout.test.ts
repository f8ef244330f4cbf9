import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, gdn } from './helpers.ts';

afterAll(cleanupTempDirs);

/** A calc tool that writes to stdout every way a handler can: at import, through console and through ctx.logger. */
const noisyCalc = `import type { ToolContext } from '@goondan/core';
console.log('NOISE: loaded');
export const handlers = {
  add: (ctx: ToolContext, input: { a: number; b: number }) => {
    console.log('NOISE: log');
    console.info('NOISE: info');
    console.debug('NOISE: debug');
    process.stdout.write('NOISE: write\\n');
    ctx.logger.info('NOISE: ctx.logger');
    return { sum: input.a + input.b };
  },
  boom: () => {
    throw new Error('kaboom');
  },
  later: () => null,
};
`;

/** stdout parses as one JSON document; the noise went to stderr. */
function expectOneJsonDocument(
  result: { stdout: string; stderr: string; exitCode: number | null },
  options: { importsTools?: boolean } = {},
): unknown {
  let parsed: unknown;
  expect(() => {
    parsed = JSON.parse(result.stdout);
  }).not.toThrow();
  expect(result.stdout).not.toContain('NOISE');
  // audit reads databases only; validate imports the modules in a probe process whose output is discarded.
  if (options.importsTools !== false) expect(result.stderr).toContain('NOISE: loaded');
  return parsed;
}

describe('JSON output keeps stdout to one JSON document', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = await agentBundle();
    await writeFile(join(bundle, 'tools', 'calc.ts'), noisyCalc);
  });

  test('gdn run --json: handler console output and ctx.logger go to stderr', async () => {
    const result = await gdn(['run', '--bundle', bundle, '--input', 'What is 2 + 3?', '--json']);
    expect(result.exitCode).toBe(0);
    const json = expectOneJsonDocument(result) as { text: string };
    expect(json.text).toBe('The sum is 5.');
    for (const line of ['NOISE: log', 'NOISE: info', 'NOISE: debug', 'NOISE: write', 'NOISE: ctx.logger'])
      expect(result.stderr).toContain(line);
  });

  test('gdn run without --json: ctx.logger goes to stderr, stdout is the reply', async () => {
    const result = await gdn(['run', '--bundle', bundle, '--input', 'What is 2 + 3?', '--instance', 'plain']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('NOISE: ctx.logger');
    expect(result.stderr).toContain('NOISE: ctx.logger');
  });

  test('gdn tools call prints only the ToolResult on stdout', async () => {
    const result = await gdn(['tools', 'call', '--bundle', bundle, 'calc__add', '{"a":1,"b":2}']);
    expect(result.exitCode).toBe(0);
    expect(expectOneJsonDocument(result)).toMatchObject({ status: 'ok', output: { sum: 3 } });
    expect(result.stderr).toContain('NOISE: ctx.logger');
  });

  test('gdn tools list --json, validate --format json, trace --json and audit --json', async () => {
    await gdn(['run', '--bundle', bundle, '--input', 'What is 2 + 3?', '--instance', 'default']);
    const commands = [
      ['tools', 'list', '--bundle', bundle, '--json'],
      ['validate', bundle, '--format', 'json'],
      ['trace', '--bundle', bundle, '--json'],
      ['trace', '--bundle', bundle, '--otlp'],
      ['audit', '--bundle', bundle, '--json'],
    ];
    for (const args of commands) {
      const result = await gdn(args);
      expect({ args, exitCode: result.exitCode }).toEqual({ args, exitCode: 0 });
      expectOneJsonDocument(result, { importsTools: args[0] !== 'audit' && args[0] !== 'validate' });
    }
  });
});

describe('a command asked for JSON that fails before its result', () => {
  test('prints { status: "error", error } on stdout, with the code, for a usage mistake and a coded error', async () => {
    const bundle = await agentBundle();
    const cases: [string[], number, string][] = [
      [['audit', '--bundle', bundle, '--limit', '0', '--json'], 2, 'E_CLI_USAGE'],
      [['trace', '--bundle', join(bundle, 'missing'), '--json'], 1, 'E_BUNDLE_NOT_FOUND'],
      [['tools', 'list', '--bundle', join(bundle, 'missing'), '--json'], 1, 'E_BUNDLE_NOT_FOUND'],
      [['tools', 'call', '--bundle', join(bundle, 'missing'), 'calc__add', '{}'], 1, 'E_BUNDLE_NOT_FOUND'],
    ];
    for (const [args, exitCode, code] of cases) {
      const result = await gdn(args);
      expect({ args, exitCode: result.exitCode }).toEqual({ args, exitCode });
      const json = JSON.parse(result.stdout) as {
        status: string;
        error: { code: string; name: string; message: string; suggestion: string; helpUrl: string };
      };
      expect(json.status).toBe('error');
      // The shape of a ToolResult's error, whatever failed: a usage mistake or a coded error.
      expect(Object.keys(json.error)).toEqual(['code', 'name', 'message', 'suggestion', 'helpUrl']);
      expect(json.error.code).toBe(code);
      expect(json.error.name).toMatch(/Error$/);
      expect(json.error.message.length).toBeGreaterThan(0);
      expect(json.error.suggestion.length).toBeGreaterThan(0);
      expect(json.error.helpUrl).toBe(`docs/errors/${code}.md`);
      expect(result.stderr).toContain(code);
    }
  });

  test('an invalid bundle gives { status: "error", errors } as validate --json lists them', async () => {
    const bundle = await agentBundle();
    const text = await Bun.file(join(bundle, 'goondan.yaml')).text();
    const broken = text.replace(/- Tool\/(\w+)/, '- Tool/$1_typo');
    expect(broken).not.toBe(text);
    await writeFile(join(bundle, 'goondan.yaml'), broken);
    const result = await gdn(['run', '--bundle', bundle, '--input', 'hi', '--json']);
    expect(result.exitCode).toBe(1);
    const json = JSON.parse(result.stdout) as { status: string; errors: { code: string; line: number }[] };
    expect(json.status).toBe('error');
    expect(json.errors.map((problem) => problem.code)).toEqual(['E_REF_UNRESOLVED']);
    expect(json.errors[0]!.line).toBeGreaterThan(0);
  });

  test('without --json, nothing goes to stdout', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['audit', '--bundle', bundle, '--limit', '0']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
  });
});
