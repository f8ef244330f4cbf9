import { describe, expect, test } from 'bun:test';
import { type JsonValue, type Message, ToolCatalog, ToolExecutor, ToolRegistry } from '@goondan/core';
import { handlers } from './index.ts';

const message: Message = {
  id: 'm',
  data: { role: 'assistant', content: [] },
  metadata: {},
  createdAt: new Date(0),
  source: { type: 'assistant' },
};
const scope = { agentName: 'a', instanceKey: 'k', turnId: 't', message, workdir: '/tmp', logger: console };

describe('jobs__poll (spec §10.2: pending results completed by polling)', () => {
  test('a model can poll a pending handle until the job is done', async () => {
    const registry = new ToolRegistry();
    let finish: (value: JsonValue) => void = () => {};
    registry.register({ name: 'report__build', source: { type: 'config', name: 'report' } }, (ctx) =>
      ctx.jobs.submit(() => new Promise((resolve) => (finish = resolve))),
    );
    registry.register(
      {
        name: 'jobs__poll',
        parameters: { type: 'object', properties: { handle: { type: 'string' } }, required: ['handle'] },
        source: { type: 'config', name: 'jobs' },
      },
      handlers.poll!,
    );
    const executor = new ToolExecutor({ registry });
    const catalog = new ToolCatalog(registry.list().map((tool) => tool.item));
    const submitted = await executor.execute({ id: 'c1', name: 'report__build', args: {} }, { catalog, scope });
    expect(submitted.status).toBe('pending');
    const early = await executor.execute(
      { id: 'c2', name: 'jobs__poll', args: { handle: submitted.handle! } },
      { catalog, scope },
    );
    expect(early).toEqual({ status: 'ok', output: { status: 'pending', handle: submitted.handle! } });
    finish({ pages: 3 });
    await Bun.sleep(5);
    const done = await executor.execute(
      { id: 'c3', name: 'jobs__poll', args: { handle: submitted.handle! } },
      { catalog, scope },
    );
    expect(done).toEqual({ status: 'ok', output: { status: 'ok', handle: submitted.handle!, output: { pages: 3 } } });
  });

  test('an unknown handle is an error result with E_JOB_NOT_FOUND', async () => {
    const registry = new ToolRegistry();
    registry.register({ name: 'jobs__poll', source: { type: 'config', name: 'jobs' } }, handlers.poll!);
    const executor = new ToolExecutor({ registry });
    const catalog = new ToolCatalog(registry.list().map((tool) => tool.item));
    const result = await executor.execute(
      { id: 'c1', name: 'jobs__poll', args: { handle: 'job_nope' } },
      { catalog, scope },
    );
    expect(result.error?.code).toBe('E_JOB_NOT_FOUND');
  });
});
