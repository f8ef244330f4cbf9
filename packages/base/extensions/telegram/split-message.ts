/** Telegram refuses a message text longer than this many UTF-16 code units. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

/**
 * Splits a reply into pieces Telegram accepts, each at most `limit` UTF-16 code units, preferring to cut at a
 * paragraph break, then a line break, then a space; a run with none of them is cut hard (never inside a surrogate
 * pair). Breaks at a cut are dropped; empty pieces are left out.
 * @example splitMessage('a\n\nb', 2) // ['a', 'b']
 */
export function splitMessage(text: string, limit = TELEGRAM_MESSAGE_LIMIT): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    const cut = lastBreak(window, '\n\n') ?? lastBreak(window, '\n') ?? lastBreak(window, ' ') ?? hardCut(rest, limit);
    const piece = rest.slice(0, cut).trimEnd();
    if (piece) pieces.push(piece);
    rest = rest.slice(cut).trimStart();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** Index of the last `separator` in `window` that leaves a non-empty piece before it, or null. */
function lastBreak(window: string, separator: string): number | null {
  const index = window.lastIndexOf(separator);
  return index > 0 ? index : null;
}

function hardCut(text: string, limit: number): number {
  const code = text.charCodeAt(limit - 1);
  // A high surrogate at the end would split a character in two: keep the pair together in the next piece.
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
