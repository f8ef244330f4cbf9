import { afterAll, describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, cliEnv, copyFixture, fixturesDir, gdn, gdnJson, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

interface Problem {
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
  path: string;
  suggestion: string;
  helpUrl: string;
}

/** 1-based line and column of the first occurrence of `needle` in the fixture's goondan.yaml. */
async function positionOf(dir: string, needle: string): Promise<{ line: number; column: number; source: string }> {
  const lines = (await readFile(join(dir, 'goondan.yaml'), 'utf8')).split('\n');
  const index = lines.findIndex((line) => line.includes(needle));
  if (index < 0) throw new Error(`'${needle}' is not in ${dir}/goondan.yaml`);
  return { line: index + 1, column: lines[index]!.indexOf(needle) + 1, source: lines[index]! };
}

describe('gdn validate', () => {
  test('a valid bundle exits 0 and counts its resources', async () => {
    const dir = await copyFixture('agent');
    const result = await gdn(['validate', dir]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe(`✓ ${dir}: valid (3 Tools, 1 Agent, 1 Model)`);
  });

  test('a valid bundle as --format json is {valid:true, errors:[], warnings:[]}', async () => {
    const dir = await copyFixture('agent');
    const { result, json } = await gdnJson(['validate', '--bundle', dir, '--format', 'json']);
    expect(result.exitCode).toBe(0);
    expect(json).toEqual({ valid: true, errors: [], warnings: [] });
  });

  test('a misspelt Agent field is a warning E_FIELD_IGNORED (did you mean): valid, exit 0; other commands print it too', async () => {
    const dir = await copyFixture('agent');
    const file = join(dir, 'goondan.yaml');
    const yaml = await Bun.file(file).text();
    await Bun.write(file, yaml.replace('  tools:\n    - Tool/calc', '  tols:\n    - Tool/calc'));
    const text = await gdn(['validate', '--bundle', dir]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain(`✓ ${dir}: valid (`);
    expect(text.stdout).toContain('1 warning');
    expect(text.stderr).toContain(
      'warning E_FIELD_IGNORED  spec.tols is not a field of an Agent and is ignored; did you mean tools?',
    );
    expect(text.stderr).toContain('  tols:');
    const { json } = await gdnJson<{ valid: boolean; warnings: { code: string; path: string }[] }>([
      'validate',
      '--bundle',
      dir,
      '--json',
    ]);
    expect(json.valid).toBe(true);
    expect(json.warnings.map((warning) => [warning.code, warning.path])).toEqual([['E_FIELD_IGNORED', 'spec.tols']]);
    const listed = await gdn(['tools', 'list', '--bundle', dir]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stderr).toContain('spec.tols is not a field of an Agent and is ignored; did you mean tools?');
  });

  test('a field name holding an escape sequence is printed without it (it would retitle or clear the terminal)', async () => {
    const dir = await copyFixture('agent');
    const file = join(dir, 'goondan.yaml');
    const yaml = await Bun.file(file).text();
    await Bun.write(
      file,
      yaml.replace('  tools:\n    - Tool/calc', '  "odd\\e]0;TITLE\\a\\e[2J": 1\n  tools:\n    - Tool/calc'),
    );
    const result = await gdn(['validate', '--bundle', dir]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('warning E_FIELD_IGNORED  spec.odd\ufffd]0;TITLE\ufffd\ufffd[2J is not a field');
    expect(result.stderr).not.toContain('\x1b');
  });

  test('without DIR it finds goondan.yaml in the current directory or a parent', async () => {
    const dir = await copyFixture('agent');
    const result = await gdn(['validate'], { cwd: join(dir, 'tools') });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`✓ ${dir}: valid`);
  });

  test('an invalid bundle exits 1 and prints every problem as file:line:col, the source line, a caret and an absolute help link', async () => {
    const dir = await copyFixture('bad-bundle');
    const result = await gdn(['validate', dir], { env: cliEnv({ GOONDAN_DOCS_URL: 'https://docs.example.test/gdn' }) });
    expect(result.exitCode).toBe(1);
    const out = result.stderr;
    const expected = [
      { code: 'E_NAME_INVALID', needle: 'my__tool' },
      { code: 'E_TOOL_ENTRY_NOT_FOUND', needle: './tools/missing.ts' },
      { code: 'E_SCHEMA_INVALID', needle: 'integr' },
      { code: 'E_REF_UNRESOLVED', needle: 'Tool/nope' },
    ];
    for (const { code, needle } of expected) {
      const at = await positionOf(dir, needle);
      const header = `goondan.yaml:${at.line}:${at.column}  ${code}  `;
      expect(out).toContain(header);
      // The header is followed by the offending source line and a caret under the column.
      const lines = out.split('\n');
      const headerIndex = lines.findIndex((line) => line.startsWith(header));
      const gutter = `  ${at.line} | `;
      expect(lines[headerIndex + 1]).toBe(`${gutter}${at.source}`);
      expect(lines[headerIndex + 2]).toBe(`  ${' '.repeat(String(at.line).length)} | ${' '.repeat(at.column - 1)}^`);
      expect(lines[headerIndex + 3]).toStartWith('  suggestion: ');
      expect(lines[headerIndex + 4]).toBe(`  help: https://docs.example.test/gdn/errors/${code}.md`);
    }
    expect(out).toContain(`✗ 4 problems in ${dir}`);
    // Nothing half-loaded is reported as valid on stdout.
    expect(result.stdout).toBe('');
  });

  test('--format json lists every problem with code, message, file, line, column, path, suggestion and helpUrl', async () => {
    const dir = await copyFixture('bad-bundle');
    const { result, json } = await gdnJson<{ valid: boolean; errors: Problem[] }>([
      'validate',
      dir,
      '--format',
      'json',
    ]);
    expect(result.exitCode).toBe(1);
    expect(json.valid).toBe(false);
    expect(json.errors).toHaveLength(4);
    for (const problem of json.errors) {
      expect(Object.keys(problem).sort()).toEqual(
        ['code', 'column', 'file', 'helpUrl', 'line', 'message', 'path', 'suggestion'].sort(),
      );
      expect(problem.file).toBe('goondan.yaml');
      expect(problem.suggestion.length).toBeGreaterThan(0);
      expect(problem.helpUrl).toBe(`docs/errors/${problem.code}.md`);
    }
    const byCode = new Map(json.errors.map((problem) => [problem.code, problem]));

    const name = await positionOf(dir, 'my__tool');
    expect(byCode.get('E_NAME_INVALID')).toMatchObject({ line: name.line, column: name.column, path: 'metadata.name' });
    expect(byCode.get('E_NAME_INVALID')!.message).toContain('"__"');

    const entry = await positionOf(dir, './tools/missing.ts');
    expect(byCode.get('E_TOOL_ENTRY_NOT_FOUND')).toMatchObject({
      line: entry.line,
      column: entry.column,
      path: 'spec.entry',
    });
    expect(byCode.get('E_TOOL_ENTRY_NOT_FOUND')!.message).toContain('./tools/missing.ts');

    const ref = await positionOf(dir, 'Tool/nope');
    expect(byCode.get('E_REF_UNRESOLVED')).toMatchObject({ line: ref.line, column: ref.column, path: 'spec.tools[1]' });
    expect(byCode.get('E_REF_UNRESOLVED')!.message).toContain('Tool/nope');

    const schema = await positionOf(dir, 'integr');
    expect(byCode.get('E_SCHEMA_INVALID')).toMatchObject({
      line: schema.line,
      column: schema.column,
      path: 'spec.exports[0].parameters.properties.count.type',
    });
    // Sorted by position in the file.
    const lines = json.errors.map((problem) => problem.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  test('malformed YAML is E_YAML_PARSE with its position, exit 1', async () => {
    const dir = await copyFixture('bad-yaml');
    const { result, json } = await gdnJson<{ valid: boolean; errors: Problem[] }>([
      'validate',
      dir,
      '--format',
      'json',
    ]);
    expect(result.exitCode).toBe(1);
    expect(json.valid).toBe(false);
    const parse = json.errors.filter((problem) => problem.code === 'E_YAML_PARSE');
    expect(parse.length).toBeGreaterThan(0);
    const separator = await positionOf(dir, '---');
    expect(parse[0]).toMatchObject({ file: 'goondan.yaml', line: separator.line, column: 1 });

    const text = await gdn(['validate', dir]);
    expect(text.exitCode).toBe(1);
    expect(text.stderr).toContain(`goondan.yaml:${separator.line}:1  E_YAML_PARSE`);
  });

  test('a directory without goondan.yaml is E_BUNDLE_NOT_FOUND, exit 1', async () => {
    const empty = await makeTempDir('gdn-empty-');
    const named = await gdn(['validate', empty]);
    expect(named.exitCode).toBe(1);
    expect(named.stderr).toContain('E_BUNDLE_NOT_FOUND');
    expect(named.stderr).toContain(empty);

    // Found from the current directory: no goondan.yaml here or above.
    const fromCwd = await gdn(['validate'], { cwd: empty });
    expect(fromCwd.exitCode).toBe(1);
    expect(fromCwd.stderr).toContain('E_BUNDLE_NOT_FOUND');
    // Both name the way to make one, besides --bundle.
    expect(named.stderr).toContain(
      `  suggestion: Pass --bundle the directory that holds goondan.yaml, or create a bundle there with gdn init ${empty}.`,
    );
    expect(fromCwd.stderr).toMatch(/ {2}suggestion: .*--bundle DIR.*gdn init/);
  });

  test('a --bundle that does not exist is named as missing, not as a directory without goondan.yaml', async () => {
    const missing = join(await makeTempDir('gdn-missing-'), 'nowhere');
    for (const command of [['validate'], ['run', '--input', 'hi'], ['ps'], ['migrate'], ['audit']]) {
      const result = await gdn([...command, '--bundle', missing]);
      expect({ command, exitCode: result.exitCode, first: result.stderr.split('\n')[0] }).toEqual({
        command,
        exitCode: 1,
        first: `E_BUNDLE_NOT_FOUND The directory ${missing} does not exist.`,
      });
      expect(result.stderr).toContain(`gdn init ${missing}`);
    }
  });

  test('an unknown flag or format is a usage error, exit 2', async () => {
    const dir = join(fixturesDir, 'agent');
    const flag = await gdn(['validate', dir, '--strict']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain("gdn validate: Unknown option '--strict'");
    expect(flag.stderr).toContain("Run 'gdn validate --help' for usage.");

    const format = await gdn(['validate', dir, '--format', 'xml']);
    expect(format.exitCode).toBe(2);
    expect(format.stderr).toContain("--format must be text or json, not 'xml'");

    const two = await gdn(['validate', dir, dir]);
    expect(two.exitCode).toBe(2);
  });
});
