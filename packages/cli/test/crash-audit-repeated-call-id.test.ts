// kill -9 while a tool call runs whose id an earlier turn of the instance used too (the scripted model's
// `call_<n>_<i>` ids repeat in every process; some providers number each answer's calls from call_0): the next open
// logs the cut-off call with E_TOOL_ABORTED and its own turn (docs/audit.md#when-the-process-is-killed). Rows were
// matched by call id alone, so the earlier turn's row hid it.
import { afterAll, describe, expect, test } from 'bun:test';
import { agentBundle, cleanupTempDirs, gdn, gdnJson, scriptedModel, setModel, startGdn } from './helpers.ts';

afterAll(cleanupTempDirs);

describe('kill -9 mid tool call, call id already used by an earlier turn', () => {
  test('the cut-off call still gets its E_TOOL_ABORTED audit row', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        { text: 'Quick wait.', toolCalls: [{ id: 'call_same', name: 'slow__wait', args: { ms: 10 } }] },
        { text: 'Done.' },
      ]),
    );
    const first = await gdn(['run', '--bundle', bundle, '--instance', 'rep', '--input', 'First.']);
    expect(first.exitCode).toBe(0);

    await setModel(
      bundle,
      scriptedModel([
        { text: 'Long wait.', toolCalls: [{ id: 'call_same', name: 'slow__wait', args: { ms: 10000 } }] },
        { text: 'Never reached.' },
      ]),
    );
    const killed = startGdn(['run', '--bundle', bundle, '--instance', 'rep', '--input', 'Second.']);
    await killed.waitForStderr('⚙ slow__wait');
    killed.proc.kill('SIGKILL');
    await killed.finish();

    await setModel(bundle, scriptedModel([{ text: 'Back.' }]));
    const next = await gdn(['run', '--bundle', bundle, '--instance', 'rep', '--input', 'Third.']);
    expect(next.exitCode).toBe(0);

    const audit = await gdnJson<{ toolCallId: string; status: string; errorCode: string | null; turnId: string }[]>([
      'audit',
      '--bundle',
      bundle,
      '--instance',
      'rep',
      '--json',
    ]);
    const rows = audit.json.filter((row) => row.toolCallId === 'call_same');
    expect(rows.map((row) => [row.status, row.errorCode])).toEqual([
      ['ok', null],
      ['error', 'E_TOOL_ABORTED'],
    ]);
    expect(rows[0]!.turnId).not.toBe(rows[1]!.turnId);
  }, 60_000);
});
