// Run by probeEntryModules as `bun entry-probe-child.ts`, one process per module. Reads {nonce, file, reportFile}
// from stdin, imports the file, writes `<nonce><report JSON>` to reportFile and exits. The nonce never leaves this
// closure, so the module under test cannot forge a report; it can only keep the real one from being written.
import { writeFileSync } from 'node:fs';
import type { EntryProbeReport } from './probe-entry-modules.ts';
import { propertyTypes } from './property-types.ts';

// Taken before the import, so a module that replaces them cannot change how the report is made.
const exit = process.exit.bind(process);
const writeReport = writeFileSync;
const stringify = JSON.stringify;

/** The fields of a thrown error that say where it happened; an AggregateError's first error too. */
function plainError(thrown: unknown): Record<string, unknown> | undefined {
  if (typeof thrown !== 'object' || thrown === null) return undefined;
  const source = thrown as Record<string, unknown>;
  const plain: Record<string, unknown> = {};
  for (const key of ['message', 'stack', 'position', 'referrer', 'specifier']) {
    try {
      const value = source[key];
      if (value !== undefined)
        plain[key] = stringify(value) === undefined ? String(value) : JSON.parse(stringify(value));
    } catch {
      // A field that cannot be read or copied is left out.
    }
  }
  const errors = source.errors;
  if (Array.isArray(errors) && errors.length > 0) plain.errors = [plainError(errors[0])];
  return plain;
}

async function probe(file: string): Promise<EntryProbeReport> {
  let module: Record<string, unknown>;
  try {
    module = (await import(file)) as Record<string, unknown>;
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    return { type: 'failed', reason, error: plainError(thrown) };
  }
  const handlers = module.handlers;
  const isObject = typeof handlers === 'object' && handlers !== null && !Array.isArray(handlers);
  return { type: 'loaded', exports: propertyTypes(module), handlers: isObject ? propertyTypes(handlers) : null };
}

const input = JSON.parse(await Bun.stdin.text()) as { nonce: string; file: string; reportFile: string };
const report = await probe(input.file);
// Synchronously, before any timer the module left can run; then exit, whatever those timers are.
writeReport(input.reportFile, `${input.nonce}${stringify(report)}`);
exit(0);
