import { afterAll, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, gdn, gdnJson } from './helpers.ts';

afterAll(cleanupTempDirs);

const brokenCalc = `export const handlers = {
  add: (_ctx: unknown, input: { a: number; b: number }) => {
    return { sum: input.a +* input.b };
  },
};
`;

describe('a syntax error in a tool entry module', () => {
  test('gdn validate names the entry file with line:col of the error and shows the line', async () => {
    const bundle = await agentBundle();
    await writeFile(join(bundle, 'tools', 'calc.ts'), brokenCalc);
    const result = await gdn(['validate', bundle]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('tools/calc.ts:3:28  E_TOOL_ENTRY_LOAD');
    expect(result.stderr).toContain("Tool 'calc' (goondan.yaml:8:10)");
    expect(result.stderr).toContain('  3 |     return { sum: input.a +* input.b };');
    expect(result.stderr).toContain(`    | ${' '.repeat(27)}^`);

    const { json } = await gdnJson<{ errors: { code: string; file: string; line: number; column: number }[] }>([
      'validate',
      bundle,
      '--format',
      'json',
    ]);
    expect(json.errors).toEqual([
      expect.objectContaining({ code: 'E_TOOL_ENTRY_LOAD', file: 'tools/calc.ts', line: 3, column: 28 }),
    ]);
  });

  test('gdn run reports the same place', async () => {
    const bundle = await agentBundle();
    await writeFile(join(bundle, 'tools', 'calc.ts'), brokenCalc);
    const result = await gdn(['run', '--bundle', bundle, '--input', 'hi']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('tools/calc.ts:3:28  E_TOOL_ENTRY_LOAD');
    expect(result.stderr).toContain('  3 |     return { sum: input.a +* input.b };');
  });
});
