const HEX_DIGITS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
/** Random bytes drawn 4 KiB at a time: a span is opened for every turn, step and tool call. */
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function randomHex(byteCount: number): string {
  for (;;) {
    if (poolOffset + byteCount > pool.length) {
      crypto.getRandomValues(pool);
      poolOffset = 0;
    }
    let hex = '';
    let allZero = true;
    for (let index = poolOffset; index < poolOffset + byteCount; index += 1) {
      const byte = pool[index]!;
      if (byte !== 0) allZero = false;
      hex += HEX_DIGITS[byte];
    }
    poolOffset += byteCount;
    // W3C Trace Context and OTLP treat an all-zero id as invalid; draw again in that (astronomically rare) case.
    if (!allZero) return hex;
  }
}

/** A new trace id: 32 lowercase hex characters (16 random bytes), as W3C Trace Context and OTLP expect. */
export function newTraceId(): string {
  return randomHex(16);
}

/** A new span id: 16 lowercase hex characters (8 random bytes). */
export function newSpanId(): string {
  return randomHex(8);
}
