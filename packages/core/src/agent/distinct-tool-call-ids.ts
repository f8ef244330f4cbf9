import type { Message, ToolCall } from '../types.ts';

type CallPart = { type?: string; toolCallId?: unknown; providerExecuted?: boolean };

/**
 * One model answer whose tool calls share an id (OpenAI-compatible servers that number calls `call_0` in every
 * answer may repeat one; some send none): each repeat gets an id of its own (`call_0_2`, …), in the assistant
 * message and in the calls alike, so every call has exactly one result, approvals and checkpoints keyed by the id
 * cannot mix two calls up, and providers that refuse repeated ids accept the history. The k-th part with an id is
 * the k-th call with it. Returns the inputs themselves when every id is distinct already.
 */
export function distinctToolCallIds(
  assistant: Message[],
  calls: ToolCall[],
): { assistant: Message[]; calls: ToolCall[] } {
  const seen = new Set<string>();
  let repeated = false;
  for (const call of calls) {
    if (call.id === '' || seen.has(call.id)) repeated = true;
    seen.add(call.id);
  }
  if (!repeated) return { assistant, calls };
  const taken = new Set(seen);
  // Per original id, the new ids of its occurrences in order (the first keeps its own unless it is empty).
  const renamed = new Map<string, string[]>();
  const fresh = (id: string): string => {
    const base = id === '' ? 'call' : id;
    let suffix = 2;
    while (taken.has(`${base}_${suffix}`)) suffix += 1;
    const name = `${base}_${suffix}`;
    taken.add(name);
    return name;
  };
  const newCalls = calls.map((call) => {
    const list = renamed.get(call.id) ?? [];
    renamed.set(call.id, list);
    const id = list.length === 0 && call.id !== '' ? call.id : fresh(call.id);
    list.push(id);
    return id === call.id ? call : { ...call, id };
  });
  const used = new Map<string, number>();
  const newAssistant = assistant.map((message) => {
    if (message.data.role !== 'assistant' || !Array.isArray(message.data.content)) return message;
    let changed = false;
    const content = (message.data.content as CallPart[]).map((part) => {
      if (part.type !== 'tool-call' || typeof part.toolCallId !== 'string' || part.providerExecuted === true)
        return part;
      const list = renamed.get(part.toolCallId);
      const index = used.get(part.toolCallId) ?? 0;
      used.set(part.toolCallId, index + 1);
      const id = list?.[index];
      if (id === undefined || id === part.toolCallId) return part;
      changed = true;
      return { ...part, toolCallId: id };
    });
    return changed ? ({ ...message, data: { ...message.data, content } } as Message) : message;
  });
  return { assistant: newAssistant, calls: newCalls };
}
