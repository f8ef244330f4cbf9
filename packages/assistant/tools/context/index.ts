/**
 * context__update_base_system_prompt (docs/assistant.md#self-editing): the calling Agent's system prompt outside
 * its "## Agent memory" block, through a bundle changeset; replacing more than 5 lines is guarded (preview/confirm).
 */
import { withGuardrail } from '@goondan/core';
import { refuseSecretText } from '../settings/refuse-secrets.ts';

// biome-ignore lint/suspicious/noExplicitAny: the input is checked by the parameters schema.
type Input = any;

export const handlers = {
  update_base_system_prompt: withGuardrail(async (ctx, input: Input) => {
    // The prompt is written into goondan.yaml, which is kept in git: no credential goes there.
    refuseSecretText(input.content, 'content');
    return (await import('../../src/bundle-edit/agent-create.ts')).agentCreateEdits.planBasePrompt(ctx, input);
  }),
};
