import type { StepMiddleware, TurnMiddleware } from '../agent/turn-types.ts';
import type { RiskCategory } from '../permissions/permission-types.ts';
import type { PipelineKind } from '../pipeline/middleware-results.ts';
import type { JsonObject, JsonValue, ToolCallMiddleware, ToolCatalogItem, ToolHandler } from '../types.ts';

export type { PipelineKind };

export interface MiddlewareByKind {
  turn: TurnMiddleware;
  step: StepMiddleware;
  toolCall: ToolCallMiddleware;
}

/** Per-instance persistent key/value state of one extension (survives restarts). */
export interface ExtensionState {
  get<T extends JsonValue = JsonValue>(key: string): T | undefined;
  set(key: string, value: JsonValue): void;
  delete(key: string): void;
}

/** What an extension's `register(api)` receives (spec §8.4, §12.1). */
export interface ExtensionApi {
  readonly extensionName: string;
  readonly agentName: string;
  readonly instanceKey: string;
  /**
   * The instance's workdir (spec §2.5.1), as its tools see it in ctx.workdir (addition): an extension that keeps
   * data beside the bundle finds it from here. Absent only in APIs made by hand in tests.
   */
  readonly workdir?: string;
  /** The Extension's spec.config merged with the Agent's per-reference config. */
  readonly config: Readonly<JsonObject>;
  pipeline: {
    /** Lower priority runs first (outermost); ties keep registration order. Default 0. */
    register<K extends PipelineKind>(kind: K, middleware: MiddlewareByKind[K], options?: { priority?: number }): void;
  };
  tools: {
    /**
     * Spec §12.1: adds a tool to the registry; it is in the catalog from the next step. `item.source` defaults to
     * `{type: 'extension', name}`; an MCP bridge may pass `{type: 'mcp', ...}`.
     */
    register(
      item: ToolCatalogItem,
      handler: ToolHandler,
      options?: { timeoutMs?: number; errorMessageLimit?: number; category?: RiskCategory },
    ): void;
    unregister(name: string): boolean;
    /** Every registered tool (not only the catalog): for search and exposure control. */
    list(): readonly ToolCatalogItem[];
  };
  state: ExtensionState;
  logger: Console;
  /** Called when the instance's conversation is reset (`/reset`): state tied to the conversation should go. */
  onConversationReset(listener: () => void): void;
  /** Called when the instance closes: disconnect servers, stop timers. */
  onClose(listener: () => void | Promise<void>): void;
}

/** The shape an Extension's entry module exports. */
export type ExtensionRegister = (api: ExtensionApi) => void | Promise<void>;
