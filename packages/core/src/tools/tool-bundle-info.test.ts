import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { loadBundle } from '../config/load-bundle.ts';
import { bundleFromJson, bundleToJson } from '../orchestrator/bundle-transfer.ts';
import type { ToolContext } from '../types.ts';
import { createAgentToolset } from './agent-toolset.ts';
import { testScope } from './test-support.ts';

const fixture = (name: string) => join(import.meta.dir, '..', 'config', '__fixtures__', name);

describe('ToolContext.bundle: the bundle a tool runs in and its libraries', () => {
  test('loadBundle records the library dirs; they travel to an agent process and reach the handler', async () => {
    const { bundle } = await loadBundle({ dir: fixture('override'), libraries: [fixture('lib-basic')] });
    expect(bundle?.libraries).toEqual([fixture('lib-basic')]);
    const travelled = bundleFromJson(bundleToJson(bundle!));
    expect(travelled.libraries).toEqual([fixture('lib-basic')]);

    let seen: ToolContext['bundle'];
    const say = (ctx: ToolContext) => {
      seen = ctx.bundle;
      return 'ok';
    };
    const handlers = new Map([
      ['Tool/echo', { say }],
      ['Tool/shout', { say }],
    ]);
    const toolset = createAgentToolset({ bundle: travelled, handlers, agent: null });
    const catalog = toolset.catalogBuilder.build();
    const result = await toolset.executor.execute(
      { id: 'c1', name: 'echo__say', args: {} },
      { catalog, scope: testScope() },
    );
    expect(result.status).toBe('ok');
    expect(seen).toEqual({ rootDir: fixture('override'), libraries: [fixture('lib-basic')] });
  });
});
