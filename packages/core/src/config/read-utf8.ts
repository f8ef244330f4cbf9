/** The file's text, or where its first byte that is not UTF-8 is (line and column from 1, offset from 0). */
export type Utf8Reading =
  | { type: 'text'; text: string }
  | { type: 'invalid'; line: number; column: number; offset: number; byte: number };

/**
 * Reads `bytes` as UTF-8 without replacing anything: a byte that is not UTF-8 is reported rather than turned into
 * U+FFFD (which writing the text back would store for good). A BOM is kept as U+FEFF, so it is written back too.
 */
export function readUtf8(bytes: Uint8Array): Utf8Reading {
  try {
    return { type: 'text', text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    // The lossy reading encodes back to the same bytes up to the first sequence it had to replace.
    const again = Buffer.from(Buffer.from(bytes).toString('utf8'), 'utf8');
    let offset = 0;
    while (offset < bytes.length && bytes[offset] === again[offset]) offset++;
    let line = 1;
    let lineStart = 0;
    for (let index = 0; index < offset; index++) {
      if (bytes[index] !== 0x0a) continue;
      line++;
      lineStart = index + 1;
    }
    // Columns count characters (UTF-16 units, as the YAML parser's do), not bytes; the line up to `offset` is UTF-8.
    const column = Buffer.from(bytes.subarray(lineStart, offset)).toString('utf8').length + 1;
    return { type: 'invalid', line, column, offset, byte: bytes[offset] ?? 0 };
  }
}
