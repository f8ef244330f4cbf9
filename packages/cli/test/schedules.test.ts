import { afterAll, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, cliEnv, gdn, gdnJson, mainTs, makeTempDir, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

/** `gdn chat` with a standard input the test closes itself, and its stdout read as it arrives. */
function startChat(bundle: string) {
  const proc = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
    cwd: tmpdir(),
    env: cliEnv(),
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let stdout = '';
  const stderr = new Response(proc.stderr).text();
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) stdout += decoder.decode(chunk, { stream: true });
  })();
  return {
    proc,
    get stdout() {
      return stdout;
    },
    async waitForStdout(text: string, timeoutMs = 60_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!stdout.includes(text)) {
        if (proc.exitCode !== null)
          throw new Error(`gdn chat exited before printing '${text}':\n${stdout}\n${await stderr}`);
        if (Date.now() > deadline) throw new Error(`no '${text}' within ${timeoutMs} ms:\n${stdout}`);
        await Bun.sleep(20);
      }
    },
    async finish() {
      proc.stdin.end();
      await proc.exited;
      await reading;
      return { exitCode: proc.exitCode, stdout, stderr: await stderr };
    },
  };
}

describe('gdn schedules', () => {
  test('a schedule added for 1 s from now fires in gdn chat as a turn, once', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'Standing up to stretch.' }]));
    const added = await gdnJson<{ id: string; nextDueAt: number; status: string }>([
      'schedules',
      'add',
      '--bundle',
      bundle,
      '--in',
      '1s',
      '--label',
      'stretch',
      '--input',
      'Time to stretch.',
      '--json',
    ]);
    expect(added.result.exitCode).toBe(0);
    expect(added.json.status).toBe('active');
    const chat = startChat(bundle);
    await chat.waitForStdout('helper> Standing up to stretch.');
    const result = await chat.finish();
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^\(alarm 'stretch' — due [^)]+\)\nhelper> Standing up to stretch\.\n$/);
    const list = await gdnJson<{ id: string; status: string; lastFiredAt: number }[]>([
      'schedules',
      'list',
      '--all',
      '--json',
      '--bundle',
      bundle,
    ]);
    expect(list.json).toEqual([expect.objectContaining({ id: added.json.id, status: 'done' })]);
    // The turn is stored with the scheduled event's text; a second chat does not fire it again.
    const again = startChat(bundle);
    const second = await again.finish();
    expect(second.stdout).toBe('');
  }, 240_000);

  test("an unknown --agent is told to the person: the bundle's agents, the closest one, what to do", async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'unused' }]));
    const result = await gdn([
      'schedules',
      'add',
      '--bundle',
      bundle,
      '--in',
      '10m',
      '--input',
      'x',
      '--agent',
      'helpr',
    ]);
    expect(result.exitCode).toBe(1);
    const [message, suggestion] = result.stderr.split('\n');
    expect(message).toBe(
      `E_AGENT_UNKNOWN No agent 'helpr' in the bundle at ${bundle} (did you mean 'helper'?); its agents: helper.`,
    );
    expect(suggestion).toBe(
      "  suggestion: Pass --agent one of the bundle's agents (helper), or declare an Agent named 'helpr' in goondan.yaml first.",
    );
    expect(result.stderr).not.toContain('agents__catalog');
  });

  test('bad input is refused with a coded error and nothing is written', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'unused' }]));
    const cases: [string[], string][] = [
      [['--at', '2020-01-01T00:00:00Z'], 'E_SCHEDULE_IN_PAST'],
      [['--rrule', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30'], 'E_SCHEDULE_INVALID'],
      [['--cron', '0 9 * * *', '--tz', 'Mars/Olympus'], 'E_SCHEDULE_TIME_ZONE'],
      [['--rrule', 'FREQ=DAILY;BYHOUR=9', '--tz', '+09:00'], 'E_SCHEDULE_TIME_ZONE'],
      [['--in', '10m', '--agent', 'nobody'], 'E_AGENT_UNKNOWN'],
    ];
    for (const [flags, code] of cases) {
      const result = await gdn(['schedules', 'add', '--bundle', bundle, '--input', 'x', ...flags]);
      expect({ flags, exitCode: result.exitCode, code: result.stderr.split(' ')[0] }).toEqual({
        flags,
        exitCode: 1,
        code,
      });
    }
    const cancel = await gdn(['schedules', 'cancel', 'sch_nope', '--bundle', bundle]);
    expect(cancel.exitCode).toBe(1);
    expect(cancel.stderr).toStartWith('E_SCHEDULE_NOT_FOUND');
    const list = await gdnJson<unknown[]>(['schedules', 'list', '--all', '--json', '--bundle', bundle]);
    expect(list.json).toEqual([]);
  }, 240_000);

  test('a timer set with timers__set (@goondan/assistant) fires in gdn chat and wakes the agent that set it', async () => {
    const bundle = await makeTempDir('gdn-timer-');
    await writeFile(
      join(bundle, 'goondan.yaml'),
      [
        scriptedModel([{ text: 'Your tea is ready.' }]),
        '---',
        'apiVersion: goondan.ai/v1',
        'kind: Agent',
        'metadata: { name: helper }',
        'spec:',
        '  modelConfig: { modelRef: Model/main }',
        '  tools: [Tool/timers]',
        '',
      ].join('\n'),
    );
    const set = await gdnJson<{ status: string; output: Record<string, unknown> }>([
      'tools',
      'call',
      '--bundle',
      bundle,
      'timers__set',
      JSON.stringify({ label: 'tea', seconds: 1, timeZone: 'Asia/Seoul' }),
    ]);
    expect(set.json.status).toBe('ok');
    // The end time is echoed with its zone, so a wrong time would be visible.
    expect(JSON.stringify(set.json.output)).toContain('+09:00');
    const chat = startChat(bundle);
    await chat.waitForStdout('helper> Your tea is ready.');
    const result = await chat.finish();
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('tea');
    const listed = await gdnJson<{ status: string; output: unknown }>([
      'tools',
      'call',
      '--bundle',
      bundle,
      'timers__list',
      '{}',
    ]);
    expect(JSON.stringify(listed.json.output)).not.toContain('tea');
  }, 240_000);
});
