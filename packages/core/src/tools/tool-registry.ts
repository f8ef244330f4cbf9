import type { ValidateFunction } from 'ajv';
import { GoondanError } from '../errors/goondan-error.ts';
import { DEFAULT_ERROR_MESSAGE_LIMIT } from '../errors/to-tool-error.ts';
import { DEFAULT_RISK_CATEGORY, type RiskCategory } from '../permissions/permission-types.ts';
import type { JsonObject, ToolCatalogItem, ToolHandler } from '../types.ts';
import { checkRegistrationOptions, type ToolRegistrationOptions } from './check-registration-options.ts';
import { freezeCatalogItem } from './freeze-catalog-item.ts';
import { compileParameters } from './schema-validator.ts';
import { checkToolName } from './tool-name.ts';

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_OUTPUT_LIMIT = 100_000;

export type { ToolRegistrationOptions } from './check-registration-options.ts';

/** One executable tool: what the model may see, and what runs. */
export interface RegisteredTool {
  /** The registry's frozen copy of what was registered (freezeCatalogItem). */
  readonly item: ToolCatalogItem;
  readonly handler: ToolHandler;
  readonly errorMessageLimit: number;
  readonly timeoutMs: number;
  readonly outputLimit: number;
  readonly config: JsonObject;
  readonly category: RiskCategory;
  /** Compiled on first call, then reused (compiling 10 000 schemas up front would slow start-up). */
  validator(): ValidateFunction | null;
}

/**
 * Every executable tool of an agent instance (spec §3): config tools, extension registrations, MCP tools.
 * A name is registered once; a second registration is an error, never an overwrite.
 */
/** Why `parameters` cannot describe a call's arguments (an object), or null when it can. */
function topLevelProblem(parameters: unknown): string | null {
  if (parameters === undefined) return null;
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    return `is ${parameters === null ? 'null' : Array.isArray(parameters) ? 'an array' : `a ${typeof parameters}`}`;
  }
  const type = (parameters as { type?: unknown }).type;
  if (type === undefined || type === 'object') return null;
  return `have type ${JSON.stringify(type)}`;
}

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  /** Bumped on every change so catalog builders can cache. */
  version = 0;

  register(item: ToolCatalogItem, handler: ToolHandler, options: ToolRegistrationOptions = {}): RegisteredTool {
    const nameProblem = typeof item?.name === 'string' ? checkToolName(item.name) : 'must be a string';
    if (nameProblem !== null) {
      throw new GoondanError('E_NAME_INVALID', `Tool name '${String(item?.name)}' ${nameProblem}.`);
    }
    if (typeof handler !== 'function') {
      throw new GoondanError(
        'E_TOOL_HANDLER_MISSING',
        `Tool '${item.name}' was registered without a handler function.`,
      );
    }
    checkRegistrationOptions(item.name, options);
    const parametersProblem = topLevelProblem(item.parameters);
    if (parametersProblem !== null) {
      throw new GoondanError(
        'E_SCHEMA_INVALID',
        `Tool '${item.name}': parameters ${parametersProblem}; a tool's parameters are a JSON Schema with type "object" at the top (the arguments are always an object).`,
      );
    }
    const existing = this.tools.get(item.name);
    if (existing) {
      const from = existing.item.source
        ? `${existing.item.source.type} '${existing.item.source.name}'`
        : 'unknown source';
      throw new GoondanError('E_TOOL_DUPLICATE', `Tool '${item.name}' is already registered (from ${from}).`);
    }
    let compiled: ValidateFunction | null | undefined;
    const frozen = freezeCatalogItem(item);
    const registered: RegisteredTool = {
      item: frozen,
      handler,
      errorMessageLimit: options.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT,
      timeoutMs: options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      outputLimit: options.outputLimit ?? DEFAULT_OUTPUT_LIMIT,
      config: options.config ?? {},
      category: options.category ?? DEFAULT_RISK_CATEGORY,
      validator: () => {
        if (compiled === undefined) compiled = frozen.parameters ? compileParameters(frozen.parameters) : null;
        return compiled;
      },
    };
    this.tools.set(item.name, registered);
    this.version += 1;
    return registered;
  }

  unregister(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.version += 1;
    return removed;
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  get size(): number {
    return this.tools.size;
  }

  /** All tools in registration order. */
  list(): RegisteredTool[] {
    return [...this.tools.values()];
  }
}
