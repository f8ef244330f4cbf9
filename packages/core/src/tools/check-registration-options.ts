import { GoondanError } from '../errors/goondan-error.ts';
import { MIN_ERROR_MESSAGE_LIMIT } from '../errors/to-tool-error.ts';
import type { JsonObject } from '../json-types.ts';
import { type RiskCategory, riskCategories } from '../permissions/permission-types.ts';

export interface ToolRegistrationOptions {
  errorMessageLimit?: number;
  timeoutMs?: number;
  outputLimit?: number;
  config?: JsonObject;
  /** Risk category (permissions); default DEFAULT_RISK_CATEGORY. */
  category?: RiskCategory;
}

/**
 * Refuses registration options the executor could not honour (spec §2.4.2, §12.1): a limit of 0, NaN or Infinity
 * would cut every message to nothing or nothing at all. The bounds are those of a Tool resource in YAML.
 */
export function checkRegistrationOptions(toolName: string, options: ToolRegistrationOptions): void {
  const refuse = (field: string, value: unknown, rule: string) => {
    throw new GoondanError(
      'E_TOOL_OPTIONS_INVALID',
      `Tool '${toolName}': ${field} must be ${rule} (got ${describe(value)}).`,
    );
  };
  const integerAtLeast = (field: keyof ToolRegistrationOptions, minimum: number) => {
    const value = options[field];
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
      refuse(field, value, `an integer of at least ${minimum}`);
    }
  };
  integerAtLeast('errorMessageLimit', MIN_ERROR_MESSAGE_LIMIT);
  integerAtLeast('timeoutMs', 1);
  integerAtLeast('outputLimit', 1);
  const { category } = options;
  if (category !== undefined && !(riskCategories as readonly unknown[]).includes(category)) {
    refuse('category', category, `one of ${riskCategories.join(', ')}`);
  }
  if (options.config !== undefined && (typeof options.config !== 'object' || options.config === null)) {
    refuse('config', options.config, 'an object');
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return typeof value;
}
