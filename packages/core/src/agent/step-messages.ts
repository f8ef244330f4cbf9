import type { ModelMessage as AiModelMessage } from 'ai';
import { GoondanError } from '../errors/goondan-error.ts';
import { describeValue } from '../pipeline/middleware-results.ts';
import type { Message } from '../types.ts';

/** A step middleware's `ctx.messages` as the model reads them, refused with a plain message when one is not a Message. */
export function modelMessagesOf(messages: readonly Message[], stepIndex: number): AiModelMessage[] {
  const notMessages = (what: string) =>
    new GoondanError(
      'E_TURN_FAILED',
      `Step ${stepIndex} failed: ctx.messages ${what}: it is an array of conversation messages ({ id, data: { role, content }, metadata, createdAt, source }; an AI SDK message goes in \`data\`, createMessage() makes one); check the step middleware that set or changed it.`,
    );
  if (!Array.isArray(messages)) throw notMessages(`is ${describeValue(messages)}, not an array`);
  if (messages.length === 0) throw notMessages('is empty (the model needs at least one message)');
  const model = new Array<AiModelMessage>(messages.length);
  for (let index = 0; index < messages.length; index += 1) {
    const data = (messages[index] as Partial<Message> | null | undefined)?.data as { role?: unknown } | undefined;
    if (typeof data !== 'object' || data === null || typeof data.role !== 'string')
      throw notMessages(`has ${describeValue(messages[index])} at ${index}, which has no data.role`);
    model[index] = data as unknown as AiModelMessage;
  }
  return model;
}
