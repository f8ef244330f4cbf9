function randomHex(byteCount: number): string {
  const bytes = new Uint8Array(byteCount);
  // W3C Trace Context and OTLP treat an all-zero id as invalid; draw again in that (astronomically rare) case.
  do crypto.getRandomValues(bytes);
  while (bytes.every((byte) => byte === 0));
  return Buffer.from(bytes).toString('hex');
}

/** A new trace id: 32 lowercase hex characters (16 random bytes), as W3C Trace Context and OTLP expect. */
export function newTraceId(): string {
  return randomHex(16);
}

/** A new span id: 16 lowercase hex characters (8 random bytes). */
export function newSpanId(): string {
  return randomHex(8);
}
