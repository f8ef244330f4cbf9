import { toolCallOfEscapedError } from './running-tool-call.ts';

/**
 * Keeps an agent process alive when an error escapes every await: a tool's timer that throws, a promise nobody
 * awaited. The error is logged, and when it comes from a tool call that is still running, that call fails with
 * E_TOOL instead of reporting success (docs/writing-a-tool.md). Installed once per process by `gdn` and by each
 * agent process; returns a function that removes the handlers again.
 * @example const unguard = guardProcessErrors({ log: (line) => console.error(line) });
 */
export function guardProcessErrors(options: { log?: (line: string) => void } = {}): () => void {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const handle = (kind: string) => (thrown: unknown) => {
    try {
      const call = toolCallOfEscapedError();
      if (call?.fail(thrown)) {
        log(`${kind} in tool ${call.toolName} (call ${call.toolCallId}), which fails with E_TOOL: ${summary(thrown)}`);
      } else if (call) {
        log(`${kind} in tool ${call.toolName} (call ${call.toolCallId}) after it finished: ${detail(thrown)}`);
      } else {
        log(`${kind} outside any tool call (the process goes on): ${detail(thrown)}`);
      }
    } catch {
      // A logger that fails must not turn a survivable error into a crash loop.
    }
  };
  const onException = handle('Uncaught exception');
  const onRejection = handle('Unhandled promise rejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

function summary(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

function detail(thrown: unknown): string {
  return thrown instanceof Error ? (thrown.stack ?? summary(thrown)) : String(thrown);
}
