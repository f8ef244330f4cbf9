/**
 * A real MCP server (stdio) whose tools need MCP tasks (`execution.taskSupport: "required"`, spec 2025-11), on the
 * SDK's low-level Server with its in-memory task store. Tools: report (finishes after `ms`), broken_report (the task
 * fails with an isError result), quick (a plain tool), last_task (status of the latest task, to see cancellation).
 * `--no-tasks` leaves the tasks capability out, as a server that declares tools it cannot run would.
 */
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

const withTasks = !process.argv.includes('--no-tasks');
const taskStore = new InMemoryTaskStore();
const required = { taskSupport: 'required' } as const;
const tools: Tool[] = [
  {
    name: 'report',
    description: 'Writes a report about topic in ms milliseconds (runs as a task).',
    inputSchema: { type: 'object', properties: { topic: { type: 'string' }, ms: { type: 'integer' } } },
    execution: required,
  },
  { name: 'broken_report', description: 'A task that fails.', inputSchema: { type: 'object' }, execution: required },
  { name: 'quick', description: 'A plain tool.', inputSchema: { type: 'object' } },
  { name: 'last_task', description: 'The latest task and its status.', inputSchema: { type: 'object' } },
];

const server = new Server(
  { name: 'tasks-fixture', version: '1.0.0' },
  {
    capabilities: { tools: {}, ...(withTasks ? { tasks: { requests: { tools: { call: {} } }, cancel: {} } } : {}) },
    ...(withTasks ? { taskStore } : {}),
  },
);
let lastTaskId: string | null = null;
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name } = request.params;
  const args = (request.params.arguments ?? {}) as { topic?: string; ms?: number };
  if (name === 'quick') return { content: [{ type: 'text', text: 'quick answer' }] };
  if (name === 'last_task') {
    const task = lastTaskId ? await taskStore.getTask(lastTaskId) : null;
    return { content: [], structuredContent: { taskId: lastTaskId, status: task?.status ?? null } };
  }
  if (!request.params.task || !extra.taskStore) {
    return { isError: true, content: [{ type: 'text', text: `${name} must be called as a task` }] };
  }
  const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 20 });
  lastTaskId = task.taskId;
  const store = extra.taskStore;
  setTimeout(
    async () => {
      const current = await store.getTask(task.taskId);
      if (current.status !== 'working') return; // cancelled meanwhile
      if (name === 'broken_report') {
        await store.storeTaskResult(task.taskId, 'failed', {
          isError: true,
          content: [{ type: 'text', text: 'the printer is out of paper' }],
        });
      } else {
        await store.storeTaskResult(task.taskId, 'completed', {
          content: [{ type: 'text', text: `report about ${args.topic}` }],
        });
      }
    },
    name === 'report' ? (args.ms ?? 50) : 50,
  );
  return { task };
});
await server.connect(new StdioServerTransport());
