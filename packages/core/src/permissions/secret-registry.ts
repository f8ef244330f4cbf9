/**
 * The secret values this process knows it holds: every value resolved from a ValueSource (Model apiKey, MCP env
 * and headers, extension settings) and every model API key. Output sinks (stores, traces, audit, printers, error
 * messages, events) replace them wherever they appear, even inside a longer string, however the text around them
 * looks. Process-wide on purpose: a secret resolved anywhere is masked everywhere.
 */

/**
 * Shorter values are not remembered: masking every `abc1234` would shred ordinary text and protect little, since a
 * value that short is guessed, not leaked (docs/audit.md#redaction).
 */
export const MIN_KNOWN_SECRET_CHARS = 8;

const known = new Set<string>();
let longestFirst: readonly string[] = [];

/**
 * Remembers `value` as a secret so every output sink masks it; values shorter than 8 characters are ignored.
 * The URL-encoded form is remembered too, since keys travel in query strings.
 *
 * @example
 * rememberSecretValue(process.env.MY_SERVICE_TOKEN ?? '');
 */
export function rememberSecretValue(value: string): void {
  const before = known.size;
  for (const form of [value, value.trim(), encodeURIComponent(value)]) {
    if (form.length >= MIN_KNOWN_SECRET_CHARS) known.add(form);
  }
  if (known.size !== before) longestFirst = [...known].sort((a, b) => b.length - a.length);
}

/** The remembered secret values, longest first (so a secret containing another is masked whole). */
export function knownSecretValues(): readonly string[] {
  return longestFirst;
}

/** Forgets every remembered value (tests). */
export function forgetSecretValues(): void {
  known.clear();
  longestFirst = [];
}
