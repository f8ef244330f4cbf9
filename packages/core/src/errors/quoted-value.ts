/**
 * A value a caller sent (a flag, a header, a field, a model's request), as an error message quotes it: between single
 * quotes, cut at `max` characters, its line breaks and other control characters escaped as JSON writes them, so the
 * message stays one readable line of bounded length whatever was sent.
 */
export function quotedValue(value: string, max = 100): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return `'${JSON.stringify(cut).slice(1, -1)}'`;
}
