import { currentToolCall, toolCallOfEscapedError } from './running-tool-call.ts';

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
  // A tool may not end the process it runs in: inside a handler's async context, process.exit throws instead, so
  // the call fails with E_TOOL and the turn (and `gdn tools call --json`) still answers.
  const exit = process.exit;
  process.exit = ((code?: number | string | null) => {
    const call = currentToolCall();
    if (call) {
      throw new Error(`tool ${call.toolName} called process.exit(${code ?? ''}); a tool may not end the process`);
    }
    return exit.call(process, code as number | undefined);
  }) as typeof process.exit;
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    process.exit = exit;
  };
}

function summary(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

function detail(thrown: unknown): string {
  return thrown instanceof Error ? (thrown.stack ?? summary(thrown)) : String(thrown);
}
