/**
 * Self-editing (docs/assistant.md#self-editing): an agent's persona, memory and config live in the bundle
 * (the Agent's spec.prompt.system and labels), so every change goes through a changeset and takes effect between
 * turns. The work is in src/bundle-edit, imported on the first call (it loads the yaml library). Text bound for
 * the persona is checked here for the agent memory line, the check context__update_base_system_prompt makes, and
 * every text written is checked for credentials (goondan.yaml is kept in git), as settings are.
 */
import { type GuardrailPlan, type ToolContext, withGuardrail } from '@goondan/core';
import { displayName } from '../../src/names/display-name.ts';
import { refuseSecretText } from '../settings/refuse-secrets.ts';

const edits = async () => (await import('../../src/bundle-edit/agent-edits.ts')).agentEdits;
const creates = async () => (await import('../../src/bundle-edit/agent-create.ts')).agentCreateEdits;
const documents = () => import('../../src/bundle-edit/agent-documents.ts');

// biome-ignore lint/suspicious/noExplicitAny: each handler's input is checked by its parameters schema.
type Input = any;

/** Refuses persona text holding the `## Agent memory` line: what follows it would be read as agent memory. */
async function refuseInPersona(text: string | undefined, field: string): Promise<void> {
  if (text !== undefined) (await documents()).refuseMemoryMarker(text, { field, part: 'the persona' });
}

/** The wake word as one line of text in NFC (a control character is refused), when given. */
function withWakeWord(input: Input): Input {
  return input.wake_word === undefined ? input : { ...input, wake_word: displayName(input.wake_word, 'wake_word') };
}

/** Refuses a credential in any of `fields` of the input: each is written into goondan.yaml, kept in git. */
function refuseSecrets(input: Input, ...fields: string[]): void {
  for (const field of fields) refuseSecretText(input[field], field);
}

export const handlers = {
  persona_get: async (ctx: ToolContext, input: Input) => (await edits()).personaGet(ctx, input),
  persona_search: async (ctx: ToolContext, input: Input) => (await edits()).personaSearch(ctx, input),
  persona_update: async (ctx: ToolContext, input: Input) => {
    refuseSecrets(input, 'content');
    await refuseInPersona(input.content, "'content'");
    return (await edits()).personaUpdate(ctx, input);
  },
  // Checked on the lines as they would be, so a replacement that joins a marker line out of its parts is refused too.
  persona_replace: withGuardrail(async (ctx, input: Input): Promise<GuardrailPlan> => {
    refuseSecrets(input, 'replace');
    const plan = await (await edits()).planPersonaReplace(ctx, input);
    for (const change of plan.changes as { after?: string }[]) await refuseInPersona(change.after, "'replace'");
    return plan;
  }),
  persona_delete_lines: withGuardrail(async (ctx, input: Input) => (await edits()).planPersonaDeleteLines(ctx, input)),
  memory_get: async (ctx: ToolContext, input: Input) => (await edits()).memoryGet(ctx, input),
  memory_append: async (ctx: ToolContext, input: Input) => {
    refuseSecrets(input, 'content');
    return (await edits()).memoryAppend(ctx, input);
  },
  memory_replace: async (ctx: ToolContext, input: Input) => {
    refuseSecrets(input, 'content');
    return (await edits()).memoryReplace(ctx, input);
  },
  memory_update: async (ctx: ToolContext, input: Input) => {
    refuseSecrets(input, 'replace');
    return (await edits()).memoryUpdate(ctx, input);
  },
  config_get: async (ctx: ToolContext, input: Input) => (await edits()).configGet(ctx, input),
  config_update: async (ctx: ToolContext, input: Input) => {
    refuseSecrets(input, 'wake_word', 'description');
    return (await edits()).configUpdate(ctx, withWakeWord(input));
  },
  list: async (ctx: ToolContext) => (await edits()).list(ctx),
  create: async (ctx: ToolContext, input: Input) => {
    refuseSecrets(input, 'wake_word', 'description');
    await refuseInPersona(input.description, "'description'");
    return (await creates()).create(ctx, withWakeWord(input));
  },
  set_active: async (ctx: ToolContext, input: Input) => (await creates()).setActive(ctx, input),
};
