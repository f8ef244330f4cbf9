// What a model writes never drives the terminal: escape sequences in a tool name it invented, in arguments that
// were not JSON, or in a tool's error message are shown as U+FFFD by gdn run, gdn audit and gdn trace (the output
// here is a pipe, so nothing of ours is coloured: any ESC would be the model's).
import { afterAll, describe, expect, test } from 'bun:test';
import { agentBundle, cleanupTempDirs, gdn, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

const ESC = '\u001b';
const titleAndClear = `${ESC}]0;pwned\u0007${ESC}[2J`;

describe("a model's escape sequences", () => {
  test('reach no terminal through gdn run, gdn audit --verbose or gdn trace', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        {
          toolCalls: [
            { name: `calc__${titleAndClear}`, args: '{}' },
            { name: 'calc__add', args: `${titleAndClear} not JSON` },
          ],
        },
        { text: 'done' },
      ]),
    );
    const run = await gdn(['run', '--bundle', bundle, '--input', 'go']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('\ufffd]0;pwned\ufffd');
    const audit = await gdn(['audit', '--bundle', bundle, '--verbose']);
    expect(audit.exitCode).toBe(0);
    expect(audit.stdout).toContain('E_TOOL_NOT_IN_CATALOG');
    const trace = await gdn(['trace', '--bundle', bundle]);
    expect(trace.exitCode).toBe(0);
    expect(trace.stdout).toContain('tool calc__\ufffd]0;pwned');
    for (const output of [run.stdout, run.stderr, audit.stdout, audit.stderr, trace.stdout, trace.stderr]) {
      expect(output.includes(ESC)).toBe(false);
      expect(output.includes('\u0007')).toBe(false);
    }
  });
});

describe("a person's escape sequences, quoted back in a failure", () => {
  test('a coded error or usage error quoting a flag value prints it without them; --json has it escaped, whole', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'unused' }]));
    const agent = await gdn(['run', '--bundle', bundle, '--agent', `x${titleAndClear}`, '--input', 'go']);
    expect(agent.exitCode).toBe(1);
    expect(agent.stderr).toStartWith('E_REF_UNRESOLVED');
    // Quoted as JSON writes it: the escape sequence is shown, not sent to the terminal.
    expect(agent.stderr).toContain("No Agent named 'x\\u001b]0;pwned\\u0007\\u001b[2J'");
    const zone = await gdn([
      'schedules',
      'add',
      '--bundle',
      bundle,
      '--in',
      '1h',
      '--input',
      'x',
      '--tz',
      titleAndClear,
    ]);
    expect(zone.exitCode).toBe(1);
    expect(zone.stderr).toStartWith('E_SCHEDULE_TIME_ZONE');
    const usage = await gdn(['trace', '--bundle', bundle, '--limit', titleAndClear]);
    expect(usage.exitCode).toBe(2);
    for (const output of [agent.stderr, zone.stderr, usage.stderr]) {
      expect(output.includes(ESC)).toBe(false);
      expect(output.includes('\u0007')).toBe(false);
    }
    // A value the message quotes is quoted as JSON writes it, the same in --json: nothing of it lost, nothing sent.
    const json = await gdn(['run', '--bundle', bundle, '--agent', `x${titleAndClear}`, '--input', 'go', '--json']);
    expect(JSON.parse(json.stdout).error.message).toContain(JSON.stringify(`x${titleAndClear}`).slice(1, -1));
  });
});
