import { checkNamePart, GoondanError, type GuardrailPlan, type ToolContext } from '@goondan/core';
import { Document } from 'yaml';
import { activeDocuments } from './active-documents.ts';
import {
  agentDocument,
  documentsOfKind,
  joinPrompt,
  LABEL_DESCRIPTION,
  LABEL_WAKE_WORD,
  refuseMemoryMarker,
  setSystemPrompt,
  splitPrompt,
  systemPrompt,
} from './agent-documents.ts';
import { editBundle } from './edit-bundle.ts';

/** A new document after the others, starting with its own `---`. */
function appendDocument(documents: Document[], created: Document): void {
  if (created.directives) created.directives.docStart = true;
  documents.push(created);
}

/** agent__create, agent__set_active and context__update_base_system_prompt (docs/assistant.md#self-editing). */
export const agentCreateEdits = {
  create(ctx: ToolContext, input: { name: string; wake_word?: string; description?: string }) {
    const problem = checkNamePart(input.name);
    if (problem)
      throw new GoondanError('E_TOOL_INVALID_ARGS', `Agent name '${input.name}' ${problem}.`, {
        suggestion: 'Use lowercase letters, digits, "_" and "-", e.g. "cook" or "travel-planner".',
      });
    return editBundle(ctx, {
      message: `${ctx.agentName}: create agent ${input.name}`,
      edit: ({ documents }) => {
        const agents = documentsOfKind(documents, 'Agent');
        if (agents.some((agent) => agent.getIn(['metadata', 'name']) === input.name))
          throw new GoondanError('E_TOOL_INVALID_ARGS', `An Agent named '${input.name}' exists already.`, {
            suggestion: 'Choose another name, or change that agent with agent__persona_update / agent__config_update.',
          });
        const caller = agentDocument(documents, ctx.agentName).toJS() as { spec: Record<string, unknown> };
        const labels: Record<string, string> = {};
        if (input.wake_word !== undefined) labels[LABEL_WAKE_WORD] = input.wake_word;
        if (input.description !== undefined) labels[LABEL_DESCRIPTION] = input.description;
        const persona = `You are ${input.name}.${input.description ? ` ${input.description}` : ''}`;
        const spec: Record<string, unknown> = { modelConfig: caller.spec.modelConfig, prompt: { system: '' } };
        for (const key of ['tools', 'extensions', 'policy', 'permissions'])
          if (caller.spec[key] !== undefined) spec[key] = caller.spec[key];
        const created = new Document({
          apiVersion: 'goondan.ai/v1',
          kind: 'Agent',
          metadata: { name: input.name, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
          spec,
        });
        setSystemPrompt(created, `${persona}\n`);
        appendDocument(documents, created);
        return { name: input.name, copiedFrom: ctx.agentName };
      },
    });
  },
  setActive(ctx: ToolContext, input: { name: string }) {
    return editBundle(ctx, {
      message: `${ctx.agentName}: make ${input.name} the active agent`,
      edit: ({ documents }) => {
        agentDocument(documents, input.name);
        const ref = `Agent/${input.name}`;
        const swarms = documentsOfKind(documents, 'Swarm');
        if (swarms.length > 1)
          throw new GoondanError(
            'E_TOOL_INVALID_ARGS',
            'The bundle has several Swarms; which one is meant is unclear.',
            {
              suggestion: 'Set spec.entryAgent of the Swarm you run in goondan.yaml by hand (gdn validate checks it).',
            },
          );
        const swarm = swarms[0];
        if (!swarm) {
          const created = new Document({
            apiVersion: 'goondan.ai/v1',
            kind: 'Swarm',
            metadata: { name: 'default' },
            spec: {
              entryAgent: ref,
              agents: documentsOfKind(documents, 'Agent').map((agent) => `Agent/${agent.getIn(['metadata', 'name'])}`),
            },
          });
          appendDocument(documents, created);
          return { active: input.name, swarm: 'default', swarmCreated: true };
        }
        swarm.setIn(['spec', 'entryAgent'], ref);
        const agents = (swarm.getIn(['spec', 'agents']) as { toJSON?: () => unknown } | undefined)?.toJSON?.();
        if (!Array.isArray(agents) || !agents.includes(ref)) swarm.addIn(['spec', 'agents'], ref);
        return { active: input.name, swarm: String(swarm.getIn(['metadata', 'name'])), swarmCreated: false };
      },
    });
  },
  async planBasePrompt(
    ctx: ToolContext,
    input: { mode: 'replace' | 'append'; content: string },
  ): Promise<GuardrailPlan> {
    const content = input.content;
    if (content.trim() === '')
      throw new GoondanError('E_TOOL_INVALID_ARGS', "'content' must not be empty.", {
        suggestion: 'Give the text of the base system prompt.',
      });
    refuseMemoryMarker(content, { field: 'The base prompt', part: 'the base prompt' });
    const name = ctx.agentName;
    const { persona } = splitPrompt(systemPrompt(agentDocument(await activeDocuments(ctx), name)));
    const changes =
      input.mode === 'append'
        ? [{ appended: content }]
        : persona === ''
          ? [{ replacedLine: null, by: content }]
          : persona.split('\n').map((before, index) => ({ line: index + 1, removed: before }));
    return {
      changes,
      summary:
        input.mode === 'append'
          ? `append to the base system prompt of ${name}`
          : `replace the ${changes.length}-line base system prompt of ${name}`,
      apply: () =>
        editBundle(ctx, {
          message: `${name}: ${input.mode} base system prompt`,
          edit: ({ documents }) => {
            const agent = agentDocument(documents, name);
            const parts = splitPrompt(systemPrompt(agent));
            const next = input.mode === 'append' ? `${parts.persona.trimEnd()}\n${content}` : content;
            setSystemPrompt(agent, joinPrompt({ persona: next, memory: parts.memory }));
            return undefined;
          },
        }),
    };
  },
};
