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
