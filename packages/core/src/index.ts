// The public API of @goondan/core. Every export here is an API decision (STYLE habit 6).
export type * from './types.ts';
export type * from './config/resources.ts';
export { API_VERSION, resourceKinds } from './config/resources.ts';
export { findBundleDir } from './config/find-bundle-dir.ts';
export { formatProblems } from './config/format-problems.ts';
export { loadBundle, type LoadBundleResult } from './config/load-bundle.ts';
export { parseObjectRef, parseRefEntry, refKey } from './config/object-ref.ts';
export { resolveValueSource } from './config/resolve-value-source.ts';
export { errorCodes, helpUrlFor, type ErrorCode } from './errors/error-codes.ts';
export { GoondanError } from './errors/goondan-error.ts';
export { DEFAULT_ERROR_MESSAGE_LIMIT, toToolError, truncateErrorMessage } from './errors/to-tool-error.ts';
export { composeMiddleware, type Middleware } from './pipeline/compose-middleware.ts';
export { type AgentToolset, createAgentToolset, selectAgent } from './tools/agent-toolset.ts';
export { CatalogBuilder } from './tools/catalog-builder.ts';
export { toJsonSafe } from './tools/to-json-safe.ts';
export { ToolCatalog } from './tools/tool-catalog.ts';
export { type CallScope, type ExecutionPolicy, ToolExecutor, type ToolExecutorOptions } from './tools/tool-executor.ts';
export { isPendingSubmission, JobTable } from './tools/tool-jobs.ts';
export { buildToolName, checkNamePart, parseToolName, providerToolNamePattern } from './tools/tool-name.ts';
export {
  DEFAULT_OUTPUT_LIMIT,
  DEFAULT_TOOL_TIMEOUT_MS,
  type RegisteredTool,
  ToolRegistry,
  type ToolRegistrationOptions,
} from './tools/tool-registry.ts';
