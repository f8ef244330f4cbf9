// A real gdn process killed (SIGKILL) or interrupted (SIGINT) while a tool runs: nothing appended is lost, the
// unanswered call is answered with E_TOOL_ABORTED, and the next run continues the conversation.
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import {
  agentBundle,
  type ChatMessage,
  chatBodies,
  cleanupTempDirs,
  cliEnv,
  gdn,
  gdnJson,
  mainTs,
  scriptedModel,
  serverModel,
  setModel,
  startGdn,
} from './helpers.ts';

afterAll(cleanupTempDirs);

const system: ChatMessage = { role: 'system', content: 'You are the CLI test agent. Use tools when asked.' };

/** A bundle whose model first calls slow__wait for 10 s. */
function slowBundle() {
  return agentBundle(
    scriptedModel([
      { text: 'Waiting first.', toolCalls: [{ id: 'call_slow', name: 'slow__wait', args: { ms: 10000 } }] },
      { text: 'This reply is never reached.' },
    ]),
  );
}

const assistantCall: ChatMessage = {
  role: 'assistant',
  content: 'Waiting first.',
  tool_calls: [{ id: 'call_slow', type: 'function', function: { name: 'slow__wait', arguments: '{"ms":10000}' } }],
};

/** Runs the instance again against a test server and returns the messages the model was sent. */
async function nextRunSees(bundle: string, instance: string, input: string): Promise<ChatMessage[]> {
  const server = await startOpenAICompatibleServer({ responses: [{ text: 'Carrying on.' }] });
  try {
    await setModel(bundle, serverModel(server.url));
    const result = await gdn(['run', '--bundle', bundle, '--instance', instance, '--input', input]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('Carrying on.\n');
    const bodies = chatBodies(server.requests);
    expect(bodies).toHaveLength(1);
    return bodies[0]!.messages;
  } finally {
    await server.close();
  }
}

function toolResultOf(message: ChatMessage | undefined) {
  expect(message?.role).toBe('tool');
  return JSON.parse(message!.content as string) as { status: string; error?: { code: string; message: string } };
}

describe('interrupting gdn run while a tool runs', () => {
  test('kill -9 mid tool call loses nothing: the next run sends the history with the call answered E_TOOL_ABORTED', async () => {
    const bundle = await slowBundle();
    const first = startGdn(['run', '--bundle', bundle, '--instance', 'crashy', '--input', 'Please wait ten seconds.']);
    await first.waitForStderr('⚙ slow__wait');
    first.proc.kill('SIGKILL');
    const killed = await first.finish();
    expect(killed.signalCode).toBe('SIGKILL');
    // The first step's text may already be out (gdn run prints each step's text as the step's tools start);
    // nothing after it is.
    expect(killed.stdout.replace('Waiting first.\n', '')).toBe('');

    const messages = await nextRunSees(bundle, 'crashy', 'Are you back?');
    expect(messages).toHaveLength(5);
    expect(messages.slice(0, 3)).toEqual([
      system,
      { role: 'user', content: 'Please wait ten seconds.' },
      assistantCall,
    ]);
    expect(messages[3]!.tool_call_id).toBe('call_slow');
    const repaired = toolResultOf(messages[3]);
    expect(repaired.status).toBe('error');
    expect(repaired.error!.code).toBe('E_TOOL_ABORTED');
    expect(repaired.error!.message).toContain('stopped before this tool call finished');
    expect(messages[4]).toEqual({ role: 'user', content: 'Are you back?' });

    // The killed turn stays visible in the trace, closed by the next run as cancelled and interrupted (not left
    // running forever). Its step's spans were still in memory (they are written when the step ends).
    const { json } = await gdnJson<{
      traces: { spans: { kind: string; status: string; attributes: Record<string, unknown> }[] }[];
    }>(['trace', '--bundle', bundle, '--instance', 'crashy', '--json']);
    expect(json.traces).toHaveLength(2);
    const killedTurn = json.traces[0]!.spans.find((span) => span.kind === 'turn');
    expect(killedTurn).toMatchObject({ status: 'cancelled', attributes: { interrupted: true } });
    expect(json.traces[0]!.spans.filter((span) => span.status === 'running')).toEqual([]);
    const resumedTurn = json.traces[1]!.spans.find((span) => span.kind === 'turn');
    expect(resumedTurn!.status).toBe('ok');

    // The cut-off call ran and is in the audit log once, logged when the instance opened again, with its turn.
    const audit = await gdnJson<
      { toolCallId: string; toolName: string; status: string; errorCode: string; turnId: string | null }[]
    >(['audit', '--bundle', bundle, '--instance', 'crashy', '--json']);
    const rows = audit.json.filter((row) => row.toolCallId === 'call_slow');
    expect(rows).toEqual([
      expect.objectContaining({ toolName: 'slow__wait', status: 'error', errorCode: 'E_TOOL_ABORTED' }),
    ]);
    expect(rows[0]!.turnId).toMatch(/^turn_/);
  });

  test('Ctrl-C (SIGINT) cancels the turn at once: exit 130, says cancelled, and the next run sees E_TOOL_ABORTED', async () => {
    const bundle = await slowBundle();
    const first = startGdn(['run', '--bundle', bundle, '--instance', 'ctrlc', '--input', 'Please wait ten seconds.']);
    await first.waitForStderr('⚙ slow__wait');
    const started = Date.now();
    first.proc.kill('SIGINT');
    const cancelled = await first.finish();
    expect(cancelled.exitCode).toBe(130);
    expect(Date.now() - started).toBeLessThan(8000); // the tool would wait 10 s
    expect(cancelled.stderr).toMatch(/↳ slow__wait error E_TOOL_ABORTED [^\n]*(\d+ms|[\d.]+s)/);
    expect(cancelled.stderr).toContain('[cancelled] The turn was cancelled.');
    expect(cancelled.stdout).not.toContain('never reached');

    const messages = await nextRunSees(bundle, 'ctrlc', 'Never mind.');
    expect(messages).toHaveLength(5);
    expect(messages.slice(0, 3)).toEqual([
      system,
      { role: 'user', content: 'Please wait ten seconds.' },
      assistantCall,
    ]);
    expect(messages[3]!.tool_call_id).toBe('call_slow');
    const aborted = toolResultOf(messages[3]);
    expect(aborted.error!.code).toBe('E_TOOL_ABORTED');
    expect(aborted.error!.message).toBe("Tool 'slow__wait' was cancelled.");
    expect(messages[4]).toEqual({ role: 'user', content: 'Never mind.' });
  });

  test('--json reports a cancelled turn with status cancelled and exit 130', async () => {
    const bundle = await slowBundle();
    const first = startGdn(['run', '--bundle', bundle, '--input', 'wait', '--json']);
    // --json prints no tool lines; the fixture tool leaves a marker in its workdir once it runs.
    const marker = join(bundle, '.goondan', 'workspaces', 'helper', 'default', '.slow-started');
    const deadline = Date.now() + 30_000;
    while (!existsSync(marker) && Date.now() < deadline) await Bun.sleep(10);
    expect(existsSync(marker)).toBe(true);
    first.proc.kill('SIGINT');
    const cancelled = await first.finish();
    expect(cancelled.exitCode).toBe(130);
    const json = JSON.parse(cancelled.stdout) as { status: string; toolCalls: { toolName: string; code?: string }[] };
    expect(json.status).toBe('cancelled');
    expect(json.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'slow__wait', status: 'error', code: 'E_TOOL_ABORTED' }),
    ]);
  });

  test('Ctrl-C in gdn chat cancels only the running turn; the chat goes on', async () => {
    const server = await startOpenAICompatibleServer({
      responses: [
        { toolCalls: [{ id: 'call_chat_slow', name: 'slow__wait', arguments: '{"ms":10000}' }] },
        { text: 'Still here.' },
      ],
    });
    try {
      const bundle = await agentBundle(serverModel(server.url));
      const proc = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
        env: cliEnv(),
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
      });
      let stdout = '';
      const reading = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of proc.stdout) stdout += decoder.decode(chunk, { stream: true });
      })();
      proc.stdin.write('wait a while\n');
      proc.stdin.flush();
      const deadline = Date.now() + 30_000;
      while (!stdout.includes('⚙ slow__wait') && Date.now() < deadline) await Bun.sleep(10);
      expect(stdout).toContain('⚙ slow__wait');
      proc.kill('SIGINT');
      while (!stdout.includes('(turn cancelled)') && Date.now() < deadline) await Bun.sleep(10);
      proc.stdin.write('are you there?\n/exit\n');
      proc.stdin.end();
      await proc.exited;
      await reading;
      expect(proc.exitCode).toBe(0);
      expect(stdout).toMatch(
        /↳ slow__wait error E_TOOL_ABORTED [^\n]*(\d+ms|[\d.]+s)\n\(turn cancelled\)\nhelper> Still here\.\n$/,
      );
      const bodies = chatBodies(server.requests);
      expect(bodies).toHaveLength(2);
      const resultMessage = bodies[1]!.messages.find((message) => message.tool_call_id === 'call_chat_slow');
      expect(toolResultOf(resultMessage).error!.code).toBe('E_TOOL_ABORTED');
      expect(bodies[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'are you there?' });
    } finally {
      await server.close();
    }
  });
});
