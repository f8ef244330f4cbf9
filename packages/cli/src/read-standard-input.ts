import { UsageError } from './terminal.ts';

/** The most a command reads from standard input for one value (`gdn run --input -`, `gdn tools call NAME -`). */
export const STANDARD_INPUT_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Standard input to its end, as text (invalid UTF-8 read as U+FFFD). `what` names the value for the error: a pipe
 * that goes on past the limit is a usage error of `command`, and is not read to its end (a command fed from
 * /dev/zero by mistake stops at once, without holding gigabytes).
 */
export async function readStandardInput(command: string, what: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of Bun.stdin.stream()) {
    size += chunk.byteLength;
    if (size > STANDARD_INPUT_LIMIT_BYTES) {
      throw new UsageError(
        `${what} read from standard input went past ${STANDARD_INPUT_LIMIT_BYTES / 1024 / 1024} MiB, the most a command reads there; put a large input in a file the agent or tool can read`,
        command,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
