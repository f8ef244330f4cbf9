/** Spec §5: full tool names are `{resource}__{export}`. */

export const TOOL_NAME_SEPARATOR = '__';

/** Spec §6.2: lowercase letters, digits, `_`, `-`; `__` is checked separately so the message can say so. */
const partPattern = /^[a-z0-9_-]+$/;

/** Strictest provider rule for function names (spec README decision 3). */
export const providerToolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** Spec §5.3 */
export function parseToolName(fullName: string): { resourceName: string; exportName: string } | null {
  const index = fullName.indexOf(TOOL_NAME_SEPARATOR);
  if (index < 0) return null;
  return { resourceName: fullName.slice(0, index), exportName: fullName.slice(index + 2) };
}

/** Spec §5.3 */
export function buildToolName(resourceName: string, exportName: string): string {
  return `${resourceName}${TOOL_NAME_SEPARATOR}${exportName}`;
}

/** Why a resource or export name breaks spec §2.2.3 / §6.2, or null when it is fine. */
export function checkNamePart(part: string): string | null {
  if (part.length === 0) return 'is empty';
  if (part.includes(TOOL_NAME_SEPARATOR)) return 'contains "__", which is reserved as the separator (spec §2.2.3)';
  if (!partPattern.test(part)) return 'may contain only lowercase letters, digits, "_" and "-" (spec §6.2)';
  if (part.startsWith('_') || part.endsWith('_')) {
    return 'must not start or end with "_", or the full name would contain "___" and parse ambiguously';
  }
  return null;
}
