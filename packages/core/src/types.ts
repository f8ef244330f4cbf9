import type { JsonObject, JsonValue } from './json-types.ts';
import type { AgentsRuntime, ToolTraceContext } from './orchestrator/agents-runtime.ts';

/**
 * Shared types of @goondan/core. Shapes follow tool-system-v2.0-b.md (appendix A, §6, §7.3, §8.3, §10.1, §13.1);
 * additions beyond the spec are marked and documented in docs/decisions.md.
 */

export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from './json-types.ts';

/** JSON Schema for tool parameters (spec §6.1). Any valid JSON Schema object is accepted; `type` must be object. */
export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, JsonObject>;
  required?: string[];
  additionalProperties?: boolean | JsonObject;
  [keyword: string]: JsonValue | undefined;
}

/** Spec §6.1 */
export interface ToolExportSpec {
  name: string;
  description?: string;
  parameters?: JsonSchemaObject;
  /** Risk category for permissions (default: the Tool's spec.category, else `sensitive`). */
  category?: 'safe' | 'sensitive' | 'restricted';
}

/** Spec §13.1 */
export interface ToolSource {
  type: 'config' | 'extension' | 'mcp';
  name: string;
  mcp?: { extensionName: string; serverName?: string };
}

/** Spec §13.1 */
export interface ToolCatalogItem {
  name: string;
  description?: string;
  parameters?: JsonSchemaObject;
  source?: ToolSource;
  /**
   * Sent with deferred loading (addition): for a model whose provider supports it (anthropic), the tool is in the
   * request but loaded only when the provider's tool search finds it; other providers get it as a normal tool.
   */
  deferred?: boolean;
}

/** Where a message came from (spec appendix A `MessageSource`). */
export type MessageSource =
  | { type: 'user' }
  | { type: 'assistant'; stepId?: string }
  | { type: 'tool'; toolCallId: string; toolName: string }
  | { type: 'system' }
  | { type: 'extension'; extensionName: string }
  | { type: 'agent'; agentName: string };

/** AI SDK model message as stored in `Message.data`. Kept structural so core does not depend on `ai`. */
export interface ModelMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
  [key: string]: unknown;
}

/** Spec appendix A: a wrapper around one AI SDK message. */
export interface Message {
  readonly id: string;
  readonly data: ModelMessage;
  metadata: Record<string, JsonValue>;
  readonly createdAt: Date;
  readonly source: MessageSource;
}

/** Spec §10.1 */
export interface ToolError {
  message: string;
  name?: string;
  code?: string;
  suggestion?: string;
  helpUrl?: string;
}

/** Spec §10.1 */
export interface ToolResult {
  status: 'ok' | 'error' | 'pending';
  output?: JsonValue;
  handle?: string;
  error?: ToolError;
}

/** Spec §8.3 — what a toolCall middleware returns. */
export type ToolCallResult = ToolResult;

/** Work a handler hands back to run after it returns (spec §10.2 async submission). */
export type DeferredWork = (signal: AbortSignal) => Promise<JsonValue> | JsonValue;

/**
 * Access to asynchronous tool jobs. Addition to spec §7.3 (docs/decisions.md): a handler returns
 * `ctx.jobs.submit(work)` to answer `pending` with a handle at once; `poll(handle)` reads a job's state.
 */
export interface ToolJobs {
  submit(work: DeferredWork): PendingSubmission;
  poll(handle: string): ToolResult;
}

/** Opaque marker a handler returns to make its result `pending`. */
export interface PendingSubmission {
  readonly kind: 'goondan.pending';
  readonly handle: string;
}

/** Spec §7.3, plus `signal` and `jobs` (documented additions). */
export interface ToolContext {
  readonly agentName: string;
  readonly instanceKey: string;
  readonly turnId: string;
  readonly toolCallId: string;
  readonly message: Message;
  readonly workdir: string;
  readonly logger: Console;
  /** Aborted when the call times out or the turn is cancelled; long work must stop when it fires. */
  readonly signal: AbortSignal;
  readonly jobs: ToolJobs;
  /** The Tool's spec.config merged with the Agent's per-tool config (addition, docs/decisions.md). */
  readonly config: Readonly<JsonObject>;
  /** This call's place in its trace (addition): inter-agent requests carry it so the callee's turn joins it. */
  readonly trace?: ToolTraceContext;
  /** The agents runtime (addition, spec §2.6): present when the agent runs under an Orchestrator. */
  readonly agents?: AgentsRuntime;
  /** The bundle the agent runs (addition): its directory and the library bundles it was loaded with. */
  readonly bundle?: ToolBundleInfo;
  /**
   * Where the turn that made the call came from (addition; docs/permissions.md#sources): `user:cli`, `user:telegram`,
   * `agent:<name>`… A tool that could leak what is on this machine (the clipboard) refuses remote sources.
   */
  readonly source?: { readonly kind: string; readonly name: string };
}

/** What a tool may know of the bundle it runs in (ToolContext.bundle). */
export interface ToolBundleInfo {
  /** Absolute bundle directory (holds goondan.yaml). */
  readonly rootDir: string;
  /** Library bundle directories loaded beside it (e.g. @goondan/base): validate a changed bundle with these. */
  readonly libraries: readonly string[];
}

/** Spec §7.1 */
export type ToolHandler = (
  ctx: ToolContext,
  // biome-ignore lint/suspicious/noExplicitAny: handler authors narrow the input to their own parameter type.
  input: any,
) => Promise<JsonValue | PendingSubmission | unknown> | JsonValue | PendingSubmission | unknown;

/** Spec §8.2 */
export interface ToolCall {
  id: string;
  name: string;
  /** Object from the model; a JSON string is parsed (and refused with E_TOOL_INVALID_ARGS when broken). */
  args: JsonObject | string;
}

/** Spec §8.3 */
export interface ToolCallMiddlewareContext {
  readonly toolName: string;
  readonly toolCallId: string;
  /** The assistant message that holds the call (addition; a placeholder outside a turn, e.g. `gdn tools call`). */
  readonly message?: Message;
  args: JsonObject;
  metadata: Record<string, JsonValue>;
  next(): Promise<ToolCallResult>;
}

export type ToolCallMiddleware = (ctx: ToolCallMiddlewareContext) => Promise<ToolCallResult>;

/** Object reference: `"Kind/name"`, `{ kind, name }`, or `{ kind, name, package }` (docs/packages.md). */
export type ObjectRef = string | { kind: string; name: string; package?: string };

/** A value given inline or read from the environment. */
export type ValueSource = { value: string } | { valueFrom: { env: string } };
