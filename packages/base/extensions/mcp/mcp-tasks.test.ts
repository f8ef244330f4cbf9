import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Bridge, startBridge } from './__fixtures__/harness.ts';

const taskServer = join(import.meta.dir, '__fixtures__', 'task-server.ts');
const opened: Bridge[] = [];
async function bridge(args: string[] = [], extra: Record<string, number> = {}): Promise<Bridge> {
  const started = await startBridge({
    servers: [{ name: 'tasks', command: process.execPath, args: [taskServer, ...args], ...extra }],
  });
  opened.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

describe('mcp extension: tools that require MCP tasks', () => {
  test('a tool with execution.taskSupport "required" is called as a task and answers its result', async () => {
    const b = await bridge();
    expect(b.registry.has('tasks__report')).toBe(true);
    expect(await b.call('tasks__report', { topic: 'tides', ms: 30 })).toEqual({
      status: 'ok',
      output: 'report about tides',
    });
    expect(await b.call('tasks__quick')).toEqual({ status: 'ok', output: 'quick answer' });
  });

  test('a failed task is E_MCP_TOOL_ERROR with the result the server stored', async () => {
    const b = await bridge();
    expect((await b.call('tasks__broken_report')).error).toMatchObject({
      code: 'E_MCP_TOOL_ERROR',
      message: 'the printer is out of paper',
    });
  });

  test('a task over timeoutMs is E_TOOL_TIMEOUT and is cancelled at the server (tasks/cancel)', async () => {
    const b = await bridge([], { timeoutMs: 300 });
    const result = await b.call('tasks__report', { topic: 'slow', ms: 60_000 });
    expect(result.error?.code).toBe('E_TOOL_TIMEOUT');
    let status: string | null = null;
    for (const deadline = Date.now() + 5_000; status !== 'cancelled' && Date.now() < deadline; ) {
      status = ((await b.call('tasks__last_task')).output as { status: string }).status;
    }
    expect(status).toBe('cancelled');
  });

  test('a server without the tasks capability: its task-only tools are not offered, and the log says why', async () => {
    const b = await bridge(['--no-tasks']);
    expect(b.registry.has('tasks__report')).toBe(false);
    expect(b.registry.has('tasks__quick')).toBe(true);
    const line = b.logs.find((entry) => entry.text.includes("'report'"));
    expect(line?.level).toBe('warn');
    expect(line?.text).toContain('requires MCP tasks');
    expect(line?.text).toContain('does not declare');
  });
});
