import { GoondanError } from '@goondan/core/errors';
import { type Document, isMap, isScalar, Scalar } from 'yaml';

/** Agent memory lives in the Agent's system prompt after this line, so it reaches the model with the persona. */
export const MEMORY_MARKER = '## Agent memory';
export const LABEL_DESCRIPTION = 'assistant.goondan.ai/description';
export const LABEL_WAKE_WORD = 'assistant.goondan.ai/wake-word';

export function documentsOfKind(documents: Document[], kind: string): Document[] {
  return documents.filter((document) => document.get('kind') === kind);
}

/** The Agent document named `name`, or a coded error listing the agents there are. */
export function agentDocument(documents: Document[], name: string): Document {
  const agents = documentsOfKind(documents, 'Agent');
  const found = agents.find((document) => document.getIn(['metadata', 'name']) === name);
  if (found) return found;
  const known = agents.map((document) => String(document.getIn(['metadata', 'name']))).join(', ') || '(none)';
  throw new GoondanError('E_REF_UNRESOLVED', `No Agent named '${name}' in goondan.yaml.`, {
    suggestion: `Use one of the bundle's agents: ${known} (agent__list), or create it with agent__create.`,
  });
}

export function systemPrompt(agent: Document): string {
  const value = agent.getIn(['spec', 'prompt', 'system']);
  return typeof value === 'string' ? value : '';
}

/** Sets the system prompt, as a block literal when it has several lines (the prompt map made block style). */
export function setSystemPrompt(agent: Document, text: string): void {
  const prompt = agent.getIn(['spec', 'prompt'], true);
  if (isMap(prompt) && text.includes('\n')) prompt.flow = false;
  const node = agent.getIn(['spec', 'prompt', 'system'], true);
  if (isScalar(node)) {
    node.value = text;
    if (text.includes('\n')) node.type = Scalar.BLOCK_LITERAL;
    return;
  }
  const scalar = new Scalar(text);
  if (text.includes('\n')) scalar.type = Scalar.BLOCK_LITERAL;
  agent.setIn(['spec', 'prompt', 'system'], scalar);
}

/**
 * Refuses text for the persona part of a prompt (a persona, the base system prompt, a new agent's description) that
 * holds the memory line: written there, everything after it would be read back as agent memory.
 */
export function refuseMemoryMarker(text: string, options: { field: string; part: string }): void {
  if (!text.includes(MEMORY_MARKER)) return;
  throw new GoondanError('E_TOOL_INVALID_ARGS', `${options.field} must not contain the '${MEMORY_MARKER}' line.`, {
    suggestion: `Keep notes with agent__memory_append; ${options.part} is the text before that line.`,
  });
}

/** The persona (before the memory line) and the agent memory (after it) of a system prompt. */
export function splitPrompt(text: string): { persona: string; memory: string } {
  const at = text.indexOf(`\n${MEMORY_MARKER}\n`);
  if (at < 0) return { persona: text.trimEnd(), memory: '' };
  return { persona: text.slice(0, at).trimEnd(), memory: text.slice(at + MEMORY_MARKER.length + 2).trim() };
}

export function joinPrompt(parts: { persona: string; memory: string }): string {
  const persona = parts.persona.trimEnd();
  const memory = parts.memory.trim();
  return memory === '' ? `${persona}\n` : `${persona}\n\n${MEMORY_MARKER}\n${memory}\n`;
}

export function label(agent: Document, key: string): string | null {
  const value = agent.getIn(['metadata', 'labels', key]);
  return typeof value === 'string' ? value : null;
}
