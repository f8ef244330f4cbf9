import { GoondanError } from '@goondan/core/errors';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';

const DEFAULT_POLL_INTERVAL_MS = 1_000;
const MAX_POLL_INTERVAL_MS = 5_000;

/**
 * Calls a tool that needs MCP tasks (`execution.taskSupport: "required"`, spec 2025-11): `tools/call` with a task
 * creates it, `tasks/get` polls at the server's `pollInterval` until it ends, `tasks/result` gives its
 * CallToolResult (a failed task's too, which carries `isError`), unchecked: the caller checks it as it checks a plain
 * call's answer. `input_required` goes straight to `tasks/result`, which blocks until the task ends. When `signal`
 * aborts (timeout, cancelled turn) the task is cancelled at the server with `tasks/cancel`. Errors are thrown as the
 * SDK gives them, so the caller maps them like plain calls.
 *
 * The SDK's `experimental.tasks.callToolStream` does the same loop but turns every error into a JSON-RPC internal
 * error (a broken connection would then read as a server failure) and never sends `tasks/cancel`.
 */
export async function callToolAsTask(options: {
  client: Client;
  serverName: string;
  mcpName: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  timeoutMs: number;
}): Promise<unknown> {
  const { client, serverName, mcpName, args, signal, timeoutMs } = options;
  const requestOptions = { signal, timeout: timeoutMs };
  const created = await client.request(
    { method: 'tools/call', params: { name: mcpName, arguments: args } },
    CreateTaskResultSchema,
    { ...requestOptions, task: {} },
  );
  const { taskId } = created.task;
  try {
    let task = created.task;
    for (;;) {
      if (task.status === 'completed' || task.status === 'failed' || task.status === 'input_required') {
        return await client.experimental.tasks.getTaskResult(taskId, ResultSchema, requestOptions);
      }
      if (task.status === 'cancelled') {
        throw new GoondanError(
          'E_MCP_TOOL_ERROR',
          `MCP server '${serverName}' cancelled the task of tools/call '${mcpName}'${task.statusMessage ? `: ${task.statusMessage}` : ''}.`,
        );
      }
      await sleep(Math.min(task.pollInterval ?? DEFAULT_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS), signal);
      task = await client.experimental.tasks.getTask(taskId, requestOptions);
    }
  } finally {
    if (signal.aborted) {
      // Not awaited: the caller has its answer (timeout or cancellation); the server stops when the notice arrives.
      client.experimental.tasks.cancelTask(taskId, { timeout: timeoutMs }).catch(() => {});
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
