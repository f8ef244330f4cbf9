import { errorCodes, GoondanError, helpUrlFor, redactKnownSecrets } from '@goondan/core';
import { absoluteDocsLinks, errorPageLink } from './docs-link.ts';
import { noteFailure } from './json-stdout.ts';
import { redactForOutput } from './redact-output.ts';
import { toPathAccessError } from './system-error.ts';
import { paint, printable, UsageError, useColor } from './terminal.ts';

/**
 * A failure as a JSON document carries it, in the shape of a ToolResult's error (docs/cli.md#json-output): code,
 * name, message, suggestion and the relative help page `docs/errors/<CODE>.md` (known secrets masked later).
 */
function describeFailure(thrown: unknown): Record<string, unknown> {
  if (thrown instanceof UsageError) {
    const where = thrown.command ? `gdn ${thrown.command}` : 'gdn';
    return {
      code: thrown.code,
      name: errorCodes[thrown.code].name,
      message: redactForOutput(thrown.message),
      suggestion: `Run '${where} --help' for usage.`,
      helpUrl: helpUrlFor(thrown.code),
    };
  }
  if (thrown instanceof GoondanError) {
    return {
      code: thrown.code,
      name: thrown.name,
      message: redactForOutput(thrown.message),
      suggestion: thrown.suggestion,
      helpUrl: helpUrlFor(thrown.code),
    };
  }
  const code = 'E_UNEXPECTED';
  return {
    code,
    name: errorCodes[code].name,
    message: redactForOutput((thrown as Error)?.message ?? String(thrown)),
    suggestion: errorCodes[code].suggestion,
    helpUrl: helpUrlFor(code),
  };
}

/**
 * Prints why a command failed on standard error and returns its exit status: 2 for a usage mistake (with the
 * command's help hint), 1 for a coded GoondanError or anything unexpected. Every coded line ends with an absolute
 * link to the code's page (docs/errors).
 */
export function reportFailure(failure: unknown): number {
  // A file or directory the command could not make or use is named with what the system said, not a stack trace.
  const thrown = toPathAccessError(failure);
  noteFailure({ error: describeFailure(thrown) });
  const color = useColor(process.stderr);
  if (thrown instanceof UsageError) {
    const where = thrown.command ? `gdn ${thrown.command}` : 'gdn';
    console.error(`${where}: ${printable(thrown.message)}`);
    console.error(`Run '${where} --help' for usage.`);
    console.error(`  code: ${paint(thrown.code, 'red', color)}`);
    console.error(`  help: ${errorPageLink(thrown.code)}`);
    return 2;
  }
  if (thrown instanceof GoondanError) {
    // A failure can quote what failed (a URL with credentials, a server's answer echoing a key). The suggestion is
    // our own advice, which names flags such as `--token`: only known secret values are masked there.
    // What failed may quote the input (an agent name, a time zone): its control characters never reach the terminal.
    console.error(`${paint(thrown.code, 'red', color)} ${printable(redactForOutput(thrown.message))}`);
    console.error(`  suggestion: ${printable(absoluteDocsLinks(redactKnownSecrets(thrown.suggestion)))}`);
    console.error(`  help: ${errorPageLink(thrown.code)}`);
    return 1;
  }
  console.error(`gdn: unexpected failure: ${printable(redactForOutput((thrown as Error)?.stack ?? String(thrown)))}`);
  return 1;
}
