import type { JsonObject, JsonValue, Message, ToolCallMiddlewareContext, ToolResult } from '../types.ts';
import type { CallState } from './call-scope.ts';

/** A toolCall middleware's view of the call: accessors on the prototype, so making one per layer is cheap. */
class ToolCallLayerContext implements ToolCallMiddlewareContext {
  constructor(
    private readonly state: CallState,
    readonly next: () => Promise<ToolResult>,
  ) {}

  get toolName(): string {
    return this.state.call.name;
  }

  get toolCallId(): string {
    return this.state.call.id;
  }

  get message(): Message {
    return this.state.scope.message;
  }

  get args(): JsonObject {
    return this.state.args;
  }

  set args(value: JsonObject) {
    this.state.args = value;
  }

  get metadata(): Record<string, JsonValue> {
    this.state.metadata ??= {};
    return this.state.metadata;
  }

  set metadata(value: Record<string, JsonValue>) {
    this.state.metadata = value;
  }
}

export function bindToolCallContext(state: CallState, next: () => Promise<ToolResult>): ToolCallMiddlewareContext {
  return new ToolCallLayerContext(state, next);
}
