import { Transform, type TransformCallback } from 'node:stream';

/**
 * What a line of piped input longer than the limit becomes: one line of its own, in its place among the others, that
 * the chat answers with a notice (it cannot be typed: a NUL never reaches a chat line from a terminal).
 */
export const OVERLONG_LINE = '\u0000gdn chat: line over the limit\u0000';

/**
 * Piped input for readline, with no line longer than `limitBytes`: a line is held here until its end and passed on
 * whole, so readline never holds more than one line of the limit; a longer one is dropped to its end and passed on
 * as OVERLONG_LINE. Without it `gdn chat < /dev/zero` (a newline that never comes) grew until the process was killed.
 * Line ends are readline's: \n, and \r (with \r\n as one).
 */
export function boundLineLength(limitBytes: number): Transform {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let dropping = false;
  const endLine = (push: (chunk: Buffer) => void, end: Buffer) => {
    if (dropping) push(Buffer.from(`${OVERLONG_LINE}\n`));
    else push(Buffer.concat([...held, end]));
    held = [];
    heldBytes = 0;
    dropping = false;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      const push = (part: Buffer) => this.push(part);
      let start = 0;
      for (let index = 0; index < chunk.length; index += 1) {
        const byte = chunk[index];
        if (byte !== 0x0a && byte !== 0x0d) continue;
        take(chunk.subarray(start, index));
        endLine(push, chunk.subarray(index, index + 1));
        start = index + 1;
      }
      take(chunk.subarray(start));
      done();
    },
    flush(done: TransformCallback) {
      if (dropping || heldBytes > 0) endLine((part) => this.push(part), Buffer.alloc(0));
      done();
    },
  });

  function take(part: Buffer): void {
    if (dropping || part.length === 0) return;
    if (heldBytes + part.length > limitBytes) {
      held = [];
      heldBytes = 0;
      dropping = true;
      return;
    }
    held.push(part);
    heldBytes += part.length;
  }
}
