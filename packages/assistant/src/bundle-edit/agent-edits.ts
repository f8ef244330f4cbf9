import type { GuardrailPlan, JsonValue, ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { activeDocuments } from './active-documents.ts';
import {
  agentDocument,
  documentsOfKind,
  joinPrompt,
  LABEL_DESCRIPTION,
  LABEL_WAKE_WORD,
  label,
  setSystemPrompt,
  splitPrompt,
  systemPrompt,
} from './agent-documents.ts';
import { editBundle } from './edit-bundle.ts';

type Named = { name?: string };

function nonEmpty(value: string, field: string): string {
  if (value.trim() === '')
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${field}' must not be empty.`, {
      suggestion: `Give the text to use as ${field}.`,
    });
  return value;
}

/** Edits the persona / memory parts of one agent's system prompt through a changeset. */
function editPrompt(
  ctx: ToolContext,
  name: string,
  message: string,
  change: (parts: { persona: string; memory: string }) => { persona: string; memory: string },
): Promise<JsonValue> {
  return editBundle(ctx, {
    message,
    edit: ({ documents }) => {
      const agent = agentDocument(documents, name);
      setSystemPrompt(agent, joinPrompt(change(splitPrompt(systemPrompt(agent)))));
      return undefined;
    },
  });
}

function occurrences(text: string, find: string): number {
  return find === '' ? 0 : text.split(find).length - 1;
}

export const agentEdits = {
  async personaGet(ctx: ToolContext, input: Named) {
    const name = input.name ?? ctx.agentName;
    return { agent: name, persona: splitPrompt(systemPrompt(agentDocument(await activeDocuments(ctx), name))).persona };
  },
  async personaSearch(ctx: ToolContext, input: Named & { query: string }) {
    const name = input.name ?? ctx.agentName;
    const { persona } = splitPrompt(systemPrompt(agentDocument(await activeDocuments(ctx), name)));
    const query = nonEmpty(input.query, 'query').toLowerCase();
    const matches = persona
      .split('\n')
      .map((text, index) => ({ line: index + 1, text }))
      .filter((line) => line.text.toLowerCase().includes(query));
    return { agent: name, count: matches.length, matches };
  },
  personaUpdate(ctx: ToolContext, input: Named & { mode: 'replace' | 'append'; content: string }) {
    const name = input.name ?? ctx.agentName;
    const content = nonEmpty(input.content, 'content');
    return editPrompt(ctx, name, `${name}: ${input.mode} persona`, (parts) => ({
      ...parts,
      persona: input.mode === 'append' ? `${parts.persona.trimEnd()}\n${content}` : content,
    }));
  },
  async planPersonaReplace(ctx: ToolContext, input: Named & { find: string; replace: string }): Promise<GuardrailPlan> {
    const name = input.name ?? ctx.agentName;
    const find = nonEmpty(input.find, 'find');
    const { persona } = splitPrompt(systemPrompt(agentDocument(await activeDocuments(ctx), name)));
    const lines = persona.split('\n');
    const changes: JsonValue[] = [];
    lines.forEach((text, index) => {
      for (let n = occurrences(text, find); n > 0; n -= 1)
        changes.push({ line: index + 1, before: text, after: text.split(find).join(input.replace) });
    });
    if (changes.length === 0) throw notFound(find, name);
    return {
      changes,
      summary: `${changes.length} occurrence${changes.length === 1 ? '' : 's'} of '${find}' in the persona of ${name}`,
      apply: () =>
        editPrompt(ctx, name, `${name}: replace '${find}' in persona`, (parts) => ({
          ...parts,
          persona: parts.persona.split(find).join(input.replace),
        })),
    };
  },
  async planPersonaDeleteLines(ctx: ToolContext, input: Named & { contains: string }): Promise<GuardrailPlan> {
    const name = input.name ?? ctx.agentName;
    const contains = nonEmpty(input.contains, 'contains');
    const { persona } = splitPrompt(systemPrompt(agentDocument(await activeDocuments(ctx), name)));
    const changes = persona
      .split('\n')
      .map((text, index) => ({ line: index + 1, deleted: text }))
      .filter((line) => line.deleted.includes(contains));
    if (changes.length === 0) throw notFound(contains, name);
    return {
      changes,
      summary: `${changes.length} line${changes.length === 1 ? '' : 's'} containing '${contains}' in the persona of ${name}`,
      apply: () =>
        editPrompt(ctx, name, `${name}: delete persona lines containing '${contains}'`, (parts) => ({
          ...parts,
          persona: parts.persona
            .split('\n')
            .filter((text) => !text.includes(contains))
            .join('\n'),
        })),
    };
  },
  async memoryGet(ctx: ToolContext, input: Named) {
    const name = input.name ?? ctx.agentName;
    return { agent: name, memory: splitPrompt(systemPrompt(agentDocument(await activeDocuments(ctx), name))).memory };
  },
  memoryAppend(ctx: ToolContext, input: Named & { content: string }) {
    const name = input.name ?? ctx.agentName;
    const content = nonEmpty(input.content, 'content');
    return editPrompt(ctx, name, `${name}: append agent memory`, (parts) => ({
      ...parts,
      memory: parts.memory === '' ? content : `${parts.memory}\n${content}`,
    }));
  },
  memoryReplace(ctx: ToolContext, input: Named & { content: string }) {
    const name = input.name ?? ctx.agentName;
    return editPrompt(ctx, name, `${name}: replace agent memory`, (parts) => ({ ...parts, memory: input.content }));
  },
  memoryUpdate(ctx: ToolContext, input: Named & { find: string; replace: string }) {
    const name = input.name ?? ctx.agentName;
    const find = nonEmpty(input.find, 'find');
    return editPrompt(ctx, name, `${name}: update agent memory`, (parts) => {
      if (!parts.memory.includes(find)) throw notFound(find, name, 'memory');
      return { ...parts, memory: parts.memory.split(find).join(input.replace) };
    });
  },
  async configGet(ctx: ToolContext, input: Named) {
    const name = input.name ?? ctx.agentName;
    const agent = agentDocument(await activeDocuments(ctx), name);
    return { agent: name, wake_word: label(agent, LABEL_WAKE_WORD), description: label(agent, LABEL_DESCRIPTION) };
  },
  configUpdate(ctx: ToolContext, input: Named & { wake_word?: string; description?: string }) {
    const name = input.name ?? ctx.agentName;
    if (input.wake_word === undefined && input.description === undefined)
      throw new GoondanError('E_TOOL_INVALID_ARGS', 'Nothing to update.', {
        suggestion: 'Give wake_word or description (or both).',
      });
    return editBundle(ctx, {
      message: `${name}: update config`,
      edit: ({ documents }) => {
        const agent = agentDocument(documents, name);
        if (input.wake_word !== undefined) agent.setIn(['metadata', 'labels', LABEL_WAKE_WORD], input.wake_word);
        if (input.description !== undefined) agent.setIn(['metadata', 'labels', LABEL_DESCRIPTION], input.description);
        return undefined;
      },
    });
  },
  async list(ctx: ToolContext) {
    const documents = await activeDocuments(ctx);
    const swarm = documentsOfKind(documents, 'Swarm')[0];
    const entry = swarm ? String(swarm.getIn(['spec', 'entryAgent']) ?? '') : '';
    return {
      agents: documentsOfKind(documents, 'Agent').map((agent) => {
        const name = String(agent.getIn(['metadata', 'name']));
        return {
          name,
          description: label(agent, LABEL_DESCRIPTION),
          wake_word: label(agent, LABEL_WAKE_WORD),
          active: entry === `Agent/${name}`,
        };
      }),
    };
  },
};

function notFound(text: string, name: string, part = 'persona'): GoondanError {
  return new GoondanError(
    'E_TOOL_INVALID_ARGS',
    `'${text}' does not occur in the ${part} of ${name}. Nothing was changed.`,
    {
      suggestion: `Read it first (agent__${part}_get) and use text that occurs in it exactly.`,
    },
  );
}
