import { redactKnownSecrets } from '@goondan/core';
import { stderrLogger } from './stderr-logger.ts';

// Kept before anything can replace it, so the JSON document still reaches standard output.
const writeStdout = process.stdout.write.bind(process.stdout);

/**
 * For commands whose standard output is one JSON document (--json, --format json, tools call): from here on,
 * whatever else would print there (a tool module's top level, a handler's console.log/info/debug, a stray
 * process.stdout.write) goes to standard error, so scripts can `JSON.parse` standard output.
 */
export function reserveStdoutForJson(): void {
  console.log = stderrLogger.log.bind(stderrLogger);
  console.info = stderrLogger.info.bind(stderrLogger);
  console.debug = stderrLogger.debug.bind(stderrLogger);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
}

/** Prints the command's JSON document on standard output (the only thing that goes there), known secrets masked. */
export function printJson(value: unknown): void {
  writeStdout(`${JSON.stringify(redactKnownSecrets(value), null, 2)}\n`);
}
