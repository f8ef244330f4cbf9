import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Message } from '@ai-sdk/provider';
import type { ModelMessage as AiModelMessage } from 'ai';

/** What one model call hands the AI SDK: the messages it still has to convert, and the model to call with them. */
export interface PreparedPrompt {
  model: LanguageModelV4;
  messages: AiModelMessage[];
}

/**
 * A conversation's prompt as the model receives it, converted once per message instead of once per step.
 *
 * The AI SDK converts every message of the prompt to the provider's form on every call (and downloads every file a
 * provider cannot fetch itself again); a Step sends the whole conversation, so that was a pass over the history and
 * a copy of it per step — at 10,000 messages a few milliseconds, which also slowed the work that ran after it. A
 * conversation only grows between steps, so this keeps what the SDK made of the messages it has seen and
 * lets it convert only the ones added since: the SDK converts the new tail (with the instructions), and the model
 * handed to it puts the kept messages between the instructions and that tail before calling the real model. What
 * the model receives is what the SDK's conversion of the whole conversation gives (prompt-cache.test.ts).
 *
 * Starts over (converts everything) when the messages do not begin with the message objects it kept (another
 * conversation, a window that moved) or are shorter, the model is another one, nothing is new, or the SDK would
 * have joined the kept last message with the first new one (two tool messages in a row become one). A conversion
 * that throws keeps nothing of it; the SDK's check that every tool call has its result holds across the two parts,
 * since a prompt the SDK accepted has no call left without one.
 *
 * Messages are compared by identity: a message object must not be changed in place while kept (the agent instance's
 * are not; a step middleware replaces a message with a new object).
 */
export class PromptCache {
  private source: readonly AiModelMessage[] | null = null;
  private model: LanguageModelV4 | null = null;
  /** How many of `source` are converted in `converted`. */
  private count = 0;
  private converted: LanguageModelV4Message[] = [];

  /** Messages and model for this call: only the messages added since the last call, when that holds. */
  prepare(model: LanguageModelV4, messages: AiModelMessage[]): PreparedPrompt {
    if (model.specificationVersion !== 'v4') return { model, messages };
    let from = this.count;
    const stale = model !== this.model || messages.length < from || !this.startsWithKept(messages);
    // Two tool messages in a row are one for the SDK: the first new one cannot be converted apart from the last kept.
    const joined = from > 0 && messages[from - 1]?.role === 'tool' && messages[from]?.role === 'tool';
    if (stale || joined || from === messages.length) {
      // Everything is converted, and kept (unless the conversion throws: the model is then not called).
      this.clear();
      this.model = model;
      from = 0;
    }
    this.source = messages;
    const keeping = this.keeping(model, from, messages.length);
    return { model: keeping, messages: from === 0 ? messages : messages.slice(from) };
  }

  /**
   * Whether `messages` (at least as many as kept) begin with the messages kept: the same array (grown by push), or
   * another one holding the same message objects first (a step middleware that rebuilds its list each step around
   * the same messages, as the assistant's memory extension does).
   */
  private startsWithKept(messages: readonly AiModelMessage[]): boolean {
    const source = this.source;
    if (messages === source) return true;
    if (source === null) return false;
    for (let index = this.count - 1; index >= 0; index -= 1) if (messages[index] !== source[index]) return false;
    return true;
  }

  /** Forgets everything kept (a conversation cleared or rewritten). */
  clear(): void {
    this.source = null;
    this.model = null;
    this.count = 0;
    this.converted = [];
  }

  /**
   * A model that calls `inner` with the converted messages kept now (the first `from` of the messages) before the
   * tail the SDK converted (`from` to `to`), and keeps that tail — once, however many attempts the call takes, and
   * only if nothing was cleared meanwhile (the call itself still gets the whole prompt).
   */
  private keeping(inner: LanguageModelV4, from: number, to: number) {
    const kept = this.converted;
    const keptLength = kept.length;
    const assemble = (options: LanguageModelV4CallOptions): LanguageModelV4CallOptions => {
      const given = options.prompt;
      // The SDK accepts no system message among the messages, so the leading ones are the instructions.
      let instructions = 0;
      while (given[instructions]?.role === 'system') instructions += 1;
      // concat copies whole arrays at once: at 10,000 messages ~3.6 µs against ~12 µs for a loop element by element.
      // `kept` has grown past keptLength only when this is another attempt of the same call (the tail was kept below).
      const before = kept.length === keptLength ? kept : kept.slice(0, keptLength);
      const prompt = given.slice(0, instructions).concat(before, given.slice(instructions));
      if (this.converted === kept && this.count === from) {
        for (let index = instructions; index < given.length; index += 1) kept.push(given[index]!);
        this.count = to;
      }
      return { ...options, prompt };
    };
    return {
      specificationVersion: 'v4' as const,
      provider: inner.provider,
      modelId: inner.modelId,
      get supportedUrls() {
        return inner.supportedUrls;
      },
      doGenerate: (options: LanguageModelV4CallOptions) => inner.doGenerate(assemble(options)),
      doStream: (options: LanguageModelV4CallOptions) => inner.doStream(assemble(options)),
    } satisfies LanguageModelV4;
  }
}
