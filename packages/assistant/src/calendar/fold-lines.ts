const LIMIT = 75;

/**
 * iCalendar text with CRLF line ends and every content line folded at 75 octets (RFC 5545 §3.1), never inside a
 * UTF-8 character: ical.js folds by characters and can leave a Korean line a byte over.
 */
export function foldLines(text: string): string {
  const lines = text.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  const folded: string[] = [];
  for (const line of lines) {
    let current = '';
    let bytes = 0;
    for (const character of line) {
      const size = Buffer.byteLength(character);
      if (bytes + size > LIMIT) {
        folded.push(current);
        current = ' ';
        bytes = 1;
      }
      current += character;
      bytes += size;
    }
    folded.push(current);
  }
  return folded.join('\r\n');
}
