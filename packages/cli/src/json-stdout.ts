import { redactKnownSecrets } from '@goondan/core/session';
import { type ProtocolOutput, reserveStdout } from './reserve-stdout.ts';

/** The real standard output once it is reserved; until then a JSON document goes to process.stdout. */
let output: ProtocolOutput | undefined;

/**
 * For commands whose standard output is one JSON document (--json, --format json, tools call): from here on,
 * whatever else would print there (a tool module's top level, a handler's console.log/info/debug, a stray
 * process.stdout.write) goes to standard error, so scripts can `JSON.parse` standard output.
 */
export function reserveStdoutForJson(): void {
  output = reserveStdout();
}

let printed = false;
/** Why the command failed, as its JSON document would say it (the last failure noted). */
let failure: Record<string, unknown> | undefined;

/** Prints the command's JSON document on standard output (the only thing that goes there), known secrets masked. */
export function printJson(value: unknown): void {
  printed = true;
  const write = output ? (text: string) => output!.write(text) : (text: string) => process.stdout.write(text);
  write(`${JSON.stringify(redactKnownSecrets(value), null, 2)}\n`);
}

/** Notes why the command failed (`{ error }` or `{ errors }`), for printFailureJson; printed on stderr as well. */
export function noteFailure(doc: Record<string, unknown>): void {
  failure = doc;
}

/**
 * For a command asked for JSON that failed before printing its document (a usage mistake, an invalid bundle, a
 * coded error): `{ "status": "error", ... }` with what was noted, so standard output is still one JSON document.
 */
export function printFailureJson(): void {
  if (printed) return;
  printJson({ status: 'error', ...(failure ?? { error: { code: 'E_UNEXPECTED', message: 'The command failed.' } }) });
}
