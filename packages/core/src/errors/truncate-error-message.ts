const truncationSuffix = '... (truncated)';

/**
 * Spec §10.4: keep `limit` UTF-16 code units in all, the suffix included. The cut never falls inside a surrogate
 * pair (an emoji at the edge is left out whole), so the result is always well-formed text.
 * @example truncateErrorMessage('a'.repeat(100), 40) // 25 × 'a' + '... (truncated)'
 */
export function truncateErrorMessage(message: string, limit: number): string {
  if (message.length <= limit) return message;
  if (limit < truncationSuffix.length) return cutAtCodePoint(message, Math.max(0, limit));
  return cutAtCodePoint(message, limit - truncationSuffix.length) + truncationSuffix;
}

function cutAtCodePoint(text: string, length: number): string {
  if (length <= 0) return '';
  const last = text.charCodeAt(length - 1);
  // A high surrogate as the last kept unit would be left without its pair.
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, length - 1) : text.slice(0, length);
}
