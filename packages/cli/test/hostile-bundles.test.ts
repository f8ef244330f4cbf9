import { afterAll, describe, expect, test } from 'bun:test';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, type GdnResult, gdnWithin, hangDeadlineMs, makeTempDir, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

interface Problem {
  code: string;
  message: string;
  file: string;
  line: number;
  path: string;
}

const toolYaml = (entry: string, parameters = '{ type: object }') =>
  [
    'apiVersion: goondan.ai/v1',
    'kind: Tool',
    'metadata:',
    '  name: hostile',
    'spec:',
    `  entry: ${entry}`,
    '  exports:',
    '    - name: ping',
    '      description: Answers pong.',
    `      parameters: ${parameters}`,
  ].join('\n');

const agentYaml = [
  'apiVersion: goondan.ai/v1',
  'kind: Agent',
  'metadata:',
  '  name: helper',
  'spec:',
  '  modelConfig:',
  '    modelRef: Model/main',
  '  prompt:',
  '    system: Test agent.',
  '  tools:',
  '    - Tool/hostile',
  '---',
  scriptedModel([{ text: 'All done.' }]).trimEnd(),
].join('\n');

const pingHandlers = "export const handlers = { ping: () => ({ reply: 'pong' }) };\n";

/** A bundle whose Tool `hostile` (export `ping`) runs `topLevel` when its module is imported. */
async function hostileBundle(options: { topLevel: string; parameters?: string; extra?: string }): Promise<string> {
  const dir = await makeTempDir('gdn-hostile-');
  await mkdir(join(dir, 'tools'));
  await writeFile(join(dir, 'tools', 'hostile.ts'), `${options.topLevel}\n${pingHandlers}`);
  const documents = [toolYaml('./tools/hostile.ts', options.parameters), agentYaml];
  if (options.extra) documents.push(options.extra);
  await writeFile(join(dir, 'goondan.yaml'), `${documents.join('\n---\n')}\n`);
  return dir;
}

function expectExited(result: GdnResult & { hung: boolean }): void {
  if (result.hung) throw new Error(`gdn did not exit within ${hangDeadlineMs} ms:\n${result.stdout}\n${result.stderr}`);
  expect(result.signalCode).toBeNull();
}

function problemsOf(result: GdnResult): Problem[] {
  try {
    return (JSON.parse(result.stdout) as { errors: Problem[] }).errors;
  } catch {
    throw new Error(
      `stdout is not JSON (exit ${result.exitCode}):\n${result.stdout}\n--- stderr ---\n${result.stderr}`,
    );
  }
}

describe('a Tool module that leaves a timer running', () => {
  const topLevel = 'setInterval(() => {}, 1000);';

  test('gdn validate still exits, and the bundle is valid', async () => {
    const dir = await hostileBundle({ topLevel });
    const result = await gdnWithin(['validate', dir, '--format', 'json']);
    expectExited(result);
    expect(JSON.parse(result.stdout)).toEqual({ valid: true, errors: [], warnings: [] });
    expect(result.exitCode).toBe(0);
  });

  test('gdn tools call prints the result and exits 0', async () => {
    const dir = await hostileBundle({ topLevel });
    const result = await gdnWithin(['tools', 'call', '--bundle', dir, 'hostile__ping', '{}']);
    expectExited(result);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', output: { reply: 'pong' } });
    expect(result.exitCode).toBe(0);
  });

  test('gdn run prints the reply and exits 0', async () => {
    const dir = await hostileBundle({ topLevel });
    const result = await gdnWithin(['run', '--bundle', dir, '--input', 'hello']);
    expectExited(result);
    expect(result.stdout).toContain('All done.');
    expect(result.exitCode).toBe(0);
  });

  test('gdn chat ends at the end of its input and exits 0', async () => {
    const dir = await hostileBundle({ topLevel });
    const result = await gdnWithin(['chat', '--bundle', dir]);
    expectExited(result);
    expect(result.exitCode).toBe(0);
  });
});

describe('a Tool module that never finishes loading', () => {
  test('gdn validate reports E_TOOL_ENTRY_LOAD for a synchronous endless loop and exits 1', async () => {
    const dir = await hostileBundle({ topLevel: 'while (true) {}' });
    const result = await gdnWithin(['validate', dir, '--format', 'json']);
    expectExited(result);
    const problems = problemsOf(result);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'E_TOOL_ENTRY_LOAD', file: 'goondan.yaml', path: 'spec.entry' }),
    ]);
    expect(problems[0]?.message).toContain('did not finish loading within 10 s');
    expect(result.exitCode).toBe(1);
  });

  test('gdn tools call refuses the bundle instead of hanging', async () => {
    const dir = await hostileBundle({ topLevel: 'while (true) {}' });
    const result = await gdnWithin(['tools', 'call', '--bundle', dir, 'hostile__ping', '{}']);
    expectExited(result);
    expect(result.stderr).toContain('E_TOOL_ENTRY_LOAD');
    expect(result.exitCode).toBe(1);
  });
});

describe('a module that ends the process while it is imported', () => {
  test('process.exit(0) in a Tool module is E_TOOL_ENTRY_LOAD, never a pass', async () => {
    const dir = await hostileBundle({ topLevel: 'process.exit(0);' });
    const result = await gdnWithin(['validate', dir, '--format', 'json']);
    expectExited(result);
    const problems = problemsOf(result);
    expect(problems.map((problem) => problem.code)).toEqual(['E_TOOL_ENTRY_LOAD']);
    expect(problems[0]?.message).toContain('exit code 0');
    expect(result.exitCode).toBe(1);
  });

  test('process.exit(0) in an Extension module is E_EXTENSION_LOAD', async () => {
    const dir = await hostileBundle({
      topLevel: '',
      extra: [
        'apiVersion: goondan.ai/v1',
        'kind: Extension',
        'metadata:',
        '  name: quitter',
        'spec:',
        '  entry: ./tools/quitter.ts',
      ].join('\n'),
    });
    await writeFile(join(dir, 'tools', 'quitter.ts'), 'process.exit(0);\nexport function register() {}\n');
    const result = await gdnWithin(['validate', dir, '--format', 'json']);
    expectExited(result);
    const problems = problemsOf(result);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'E_EXTENSION_LOAD', file: 'goondan.yaml', path: 'spec.entry' }),
    ]);
    expect(result.exitCode).toBe(1);
  });

  test('a module that prints a fake report of its own does not pass', async () => {
    const fake = JSON.stringify({ type: 'loaded', exports: { handlers: 'object' }, handlers: { ping: 'function' } });
    const dir = await hostileBundle({ topLevel: `console.log(${JSON.stringify(fake)}); process.exit(0);` });
    const result = await gdnWithin(['validate', dir, '--format', 'json']);
    expectExited(result);
    expect(problemsOf(result).map((problem) => problem.code)).toEqual(['E_TOOL_ENTRY_LOAD']);
    expect(result.exitCode).toBe(1);
  });
});

describe('a catastrophic pattern in a parameter schema', () => {
  // Bun's RegExp gives up on this pattern after a second or so of backtracking per value, and answers false: a list
  // of such values stalls the process for minutes, outside any tool timeout.
  const parameters =
    "{ type: object, properties: { words: { type: array, items: { type: string, pattern: '^(a+)+$' } } } }";

  test('a call with worst-case values is answered as invalid arguments', async () => {
    const dir = await hostileBundle({ topLevel: '', parameters });
    const words = Array.from({ length: 60 }, () => `${'a'.repeat(28)}b`);
    const result = await gdnWithin(['tools', 'call', '--bundle', dir, 'hostile__ping', JSON.stringify({ words })]);
    expectExited(result);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'error', error: { code: 'E_TOOL_INVALID_ARGS' } });
    expect(result.exitCode).toBe(1);
  });

  test('a pattern the linear-time engine cannot run (lookahead) is E_SCHEMA_INVALID at validate', async () => {
    const lookahead = "{ type: object, properties: { word: { type: string, pattern: '^(?=a)a+$' } } }";
    const dir = await hostileBundle({ topLevel: '', parameters: lookahead });
    const result = await gdnWithin(['validate', dir, '--format', 'json']);
    expectExited(result);
    const problems = problemsOf(result);
    expect(problems.map((problem) => problem.code)).toEqual(['E_SCHEMA_INVALID']);
    expect(problems[0]?.message).toContain('^(?=a)a+$');
    expect(result.exitCode).toBe(1);
  });
});

describe('the problem printer', () => {
  test('a FIFO named goondan.yaml is reported without reading it', async () => {
    const dir = await makeTempDir('gdn-fifo-');
    const made = Bun.spawnSync(['mkfifo', join(dir, 'goondan.yaml')]);
    expect(made.exitCode).toBe(0);
    const result = await gdnWithin(['validate', dir]);
    expectExited(result);
    expect(result.stderr).toContain('E_BUNDLE_NOT_FOUND');
    expect(result.exitCode).toBe(1);
  });
});
