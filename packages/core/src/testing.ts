/**
 * Test helpers for tool authors: `import { createTestToolContext } from '@goondan/core/testing'`.
 * The same helpers our own tests use.
 */

import { JobTable } from './tools/tool-jobs.ts';
import type { JsonObject, Message, ToolContext } from './types.ts';

const silentLogger = new Proxy(console, { get: (target, key) => (key in target ? () => {} : undefined) });

/** A ToolContext for calling a handler directly in a test. */
export function createTestToolContext(overrides: Partial<ToolContext> & { workdir: string }): ToolContext {
  const message: Message = {
    id: 'msg_test',
    data: { role: 'assistant', content: [] },
    metadata: {},
    createdAt: new Date(0),
    source: { type: 'assistant' },
  };
  const jobs = new JobTable();
  return {
    agentName: 'test-agent',
    instanceKey: 'test',
    turnId: 'turn_test',
    toolCallId: 'call_test',
    message,
    logger: silentLogger,
    signal: new AbortController().signal,
    jobs: jobs.forTool('test__tool'),
    config: {} as JsonObject,
    ...overrides,
  };
}

export {
  type AnthropicResponseScript,
  type AnthropicTestServer,
  startAnthropicTestServer,
} from './models/anthropic-test-server.ts';
export {
  type OpenAICompatibleTestServer,
  type RecordedRequest,
  type ServerResponseScript,
  startOpenAICompatibleServer,
} from './models/openai-compatible-test-server.ts';
export { createScriptedModel, type ScriptedModel, type ScriptedStep } from './models/scripted-model.ts';

/** Forgets every secret value remembered so far (rememberSecretValue), so one test's secrets stay its own. */
export { forgetSecretValues } from './permissions/secret-registry.ts';
