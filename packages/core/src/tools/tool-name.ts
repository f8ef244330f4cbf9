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

/**
 * Why a full tool name breaks spec §2.2 (resource__export, each part non-empty and without "__", provider-safe),
 * or null when it is fine. The name is split at its first "__" (spec §5.3), so `a____b` has the export `__b`.
 */
export function checkToolName(fullName: string): string | null {
  if (!providerToolNamePattern.test(fullName)) return 'must match ^[a-zA-Z0-9_-]{1,64}$';
  const parsed = parseToolName(fullName);
  if (parsed === null) return 'must have the form resource__export';
  for (const [label, part] of [
    ['resource name', parsed.resourceName],
    ['export name', parsed.exportName],
  ] as const) {
    if (part === '') return `has an empty ${label}`;
    if (part.includes(TOOL_NAME_SEPARATOR)) {
      return `has the ${label} '${part}', which contains "__" (reserved as the separator, spec §2.2.3)`;
    }
  }
  return null;
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
