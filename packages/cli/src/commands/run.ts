import type { TurnResult } from '@goondan/core';
import { userEvent } from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { openInstanceFromFlags } from '../open-instance.ts';
import { UsageError, useColor } from '../terminal.ts';
import { toolCallPrinter } from '../tool-call-printer.ts';

export const runHelp = `Usage: gdn run --input TEXT [--agent A] [--instance K] [--json] [--bundle DIR]

Runs one turn for scripts: the input goes to the agent as a user message, tools run through the pipeline,
and the reply is printed. The conversation of the instance is kept, so the next run continues it.

Options:
  --input TEXT     the user message (use - to read it from standard input)
  --agent A        the agent to run (default: the Swarm's entryAgent, or the only Agent)
  --instance K     instance key: which conversation and workspace (default: "default")
  --json           print the turn as JSON: {turnId, traceId, status, text, steps, usage, reason?, error?, toolCalls}
  --bundle DIR     the bundle directory (default: the current directory or a parent with goondan.yaml)

Tool calls are shown on standard error as they run. Ctrl-C cancels the turn.
Exit status: 0 completed, 1 error (or invalid bundle), 2 usage error, 3 step cap reached, 130 cancelled.`;

export function exitCodeFor(result: TurnResult): number {
  return { completed: 0, error: 1, max_steps: 3, cancelled: 130 }[result.status];
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'run',
    argv,
    spec: {
      input: { type: 'string' },
      agent: { type: 'string' },
      instance: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(runHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (use --input)`, 'run');
  if (values.input === undefined) throw new UsageError('missing --input TEXT', 'run');
  const input = values.input === '-' ? await Bun.stdin.text() : values.input;
  const toolCalls: { toolName: string; status: string; code?: string; durationMs: number }[] = [];
  const printer = toolCallPrinter({ write: (line) => console.error(line), color: useColor(process.stderr) });
  const opened = await openInstanceFromFlags({
    ...values,
    observer: {
      ...(values.json ? {} : printer),
      onToolCallEnd: (event) => {
        toolCalls.push({
          toolName: event.toolName,
          status: event.result.status,
          ...(event.result.error?.code ? { code: event.result.error.code } : {}),
          durationMs: event.durationMs,
        });
        if (!values.json) printer.onToolCallEnd?.(event);
      },
    },
  });
  if (!opened) return 1;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort('interrupted'));
  const result = await opened.instance.enqueue(userEvent(input, 'cli'), { signal: controller.signal });
  await opened.instance.close();
  if (values.json) {
    console.log(JSON.stringify({ agent: opened.agent.metadata.name, ...result, toolCalls }, null, 2));
  } else {
    if (result.text) console.log(result.text);
    if (result.status !== 'completed')
      console.error(
        `[${result.status}] ${result.error ? `${result.error.code}: ${result.error.message}` : (result.reason ?? '')}`,
      );
  }
  return exitCodeFor(result);
}
