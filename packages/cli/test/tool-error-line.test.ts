import { afterAll, describe, expect, test } from 'bun:test';
import { agentBundle, cleanupTempDirs, gdn, gdnJson, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

interface Span {
  kind: string;
  name: string;
  status: string;
  attributes: Record<string, unknown>;
}

describe('a tool that throws', () => {
  test('gdn run shows its message on the tool line, the stack only in the trace', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ toolCalls: [{ name: 'calc__boom', args: { reason: 'the disk is full' } }] }, { text: 'Done.' }]),
    );
    const result = await gdn(['run', '--bundle', bundle, '--input', 'break it']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/ {2}↳ calc__boom error E_TOOL kaboom: the disk is full (?:\d+ms|[\d.]+s)/);
    // No stack on screen: neither frames nor the handler's path.
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr).not.toContain('calc.ts');

    const { json } = await gdnJson<{ traces: { spans: Span[] }[] }>(['trace', '--bundle', bundle, '--json']);
    const tool = json.traces[0]!.spans.find((span) => span.kind === 'tool')!;
    expect(tool.status).toBe('error');
    expect(tool.attributes.errorMessage).toBe('kaboom: the disk is full');
    expect(String(tool.attributes.errorStack)).toContain('tools/calc.ts');

    const tree = await gdn(['trace', '--bundle', bundle]);
    expect(tree.stdout).toContain('E_TOOL  kaboom: the disk is full');
  });

  test('a long message is cut on the tool line', async () => {
    const reason = 'x'.repeat(400);
    const bundle = await agentBundle(
      scriptedModel([{ toolCalls: [{ name: 'calc__boom', args: { reason } }] }, { text: 'Done.' }]),
    );
    const result = await gdn(['run', '--bundle', bundle, '--input', 'break it']);
    const line = result.stderr.split('\n').find((text) => text.includes('↳ calc__boom'))!;
    expect(line).toContain('E_TOOL kaboom: xxx');
    expect(line).toContain('…');
    expect(line.length).toBeLessThan(200);
  });
});
