/** Byte helpers shared by the tools that hand bytes to a model. */

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Length of `bytes` without a UTF-8 sequence cut off at its end, so a head taken at a byte limit decodes cleanly.
 * Only trailing bytes of a sequence that is started but not complete are dropped (at most 3).
 */
export function completeUtf8Length(bytes: Uint8Array): number {
  const end = bytes.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last sequence.
  for (let back = 1; back <= Math.min(4, end); back++) {
    const byte = bytes[end - back]!;
    if ((byte & 0b1100_0000) === 0b1000_0000) continue; // continuation byte
    const needed = byte >= 0b1111_0000 ? 4 : byte >= 0b1110_0000 ? 3 : byte >= 0b1100_0000 ? 2 : 1;
    return needed > back ? end - back : end;
  }
  return end;
}

/** Strict UTF-8 decoding; null when the bytes are not valid UTF-8 (binary data). */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/** Lenient UTF-8 decoding: invalid bytes become U+FFFD. For process output, which is text in practice. */
export function decodeUtf8Lenient(bytes: Uint8Array): string {
  return lenientDecoder.decode(bytes);
}

/** Concatenates chunks into one array of exactly `length` bytes. */
export function concatBytes(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const result = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    result.set(chunk, offset);
    offset += chunk.length;
  }
  return result;
}
