import type { Interface } from 'node:readline';
import type { ApprovalAnswer, ApprovalRecord, TurnResult } from '@goondan/core';
import { errorCodes } from '@goondan/core/session';
import { shellWord } from '@goondan/core/shell-word';
import {
  ApprovalQueue,
  afterTypedAhead,
  describeApproval,
  describeResolution,
  parseApprovalAnswer,
} from '../approval-prompt.ts';
import { parseCommandArgs } from '../cli-args.ts';
import { absoluteDocsLinks, errorPageLink } from '../docs-link.ts';
import { graceFlag } from '../grace-flag.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { modelRetryLine } from '../model-retry-line.ts';
import { handleShutdownSignals, openSessionFromFlags } from '../open-session.ts';
import { readStandardInput } from '../read-standard-input.ts';
import { printable, UsageError, useColor } from '../terminal.ts';
import { toolCallPrinter } from '../tool-call-printer.ts';
import { checkUserFlag } from '../user-flag.ts';
import { watchSwarm } from '../watch-swarm.ts';

export const runHelp = `Usage: gdn run --input TEXT [--agent A] [--instance K] [--user ID] [--json] [--bundle DIR]
               [--swarm NAME] [--watch] [--grace MS]

Runs one turn for scripts: the input goes to the agent as a user message, tools run through the pipeline,
and the text of every step is printed as the step ends (what the model said before calling tools, then the
reply), one block per step. The conversation of the instance is kept, so the next run continues it.

Options:
  --input TEXT     the user message (use - to read it from standard input)
  --agent A        the agent to run (default: the Swarm's entryAgent, or the only Agent)
  --instance K     instance key: which conversation and workspace (default: "default")
  --user ID        the person the turn acts for: per-user OAuth grants are theirs, and agents it asks act for
                   them too
  --json           print the turn as JSON: {turnId, traceId, status, text, texts, steps, usage, reason?, error?,
                   toolCalls}; text is the reply (the last step's), texts the text of every step that wrote one
  --bundle DIR     the bundle directory (default: the current directory or a parent with goondan.yaml)
  --swarm NAME     the Swarm to run when the bundle declares several
  --watch          (swarm) keep running after the turn; restart only the agents whose resources change
  --grace MS       (swarm) how long agents may finish their current turn at shutdown (default 10000)

Tool calls are shown on standard error as they run. Ctrl-C cancels the turn.
A call that needs approval is shown on standard error; on a terminal it is answered there (y, a, n [reason]),
otherwise from anywhere with 'gdn approvals approve|deny ID' while the run waits (until the approval expires).
With a Swarm in the bundle, an Orchestrator runs each agent instance in a process of its own: Ctrl-C or SIGTERM
shut them down gracefully (each finishes its current turn), a second Ctrl-C kills them.
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
      user: { type: 'string' },
      json: { type: 'boolean' },
      swarm: { type: 'string' },
      watch: { type: 'boolean' },
      grace: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(runHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (use --input)`, 'run');
  if (values.input === undefined && !values.watch) throw new UsageError('missing --input TEXT', 'run');
  checkUserFlag(values.user, 'run');
  const graceMs = graceFlag(values.grace, 'run');
  if (values.json) reserveStdoutForJson();
  const input = values.input === '-' ? await readStandardInput('run', 'the user message') : values.input;
  // A turn needs something to answer: an empty message is a mistake (an unset variable, an empty pipe), and some
  // providers refuse it only after the request (Anthropic: "text content blocks must be non-empty").
  if (input !== undefined && input.trim() === '') {
    const what = values.input === '-' ? 'standard input was empty' : '--input is empty';
    throw new UsageError(`${what}: the user message needs some text`, 'run');
  }
  const toolCalls: { toolName: string; status: string; code?: string; durationMs: number }[] = [];
  // No control character of the model's (an escape sequence, a lone CR) is printed, into a pipe either: its output
  // often reaches a terminal (`| tee`, a log shown later). Its newlines and tabs stay; --json has the exact text.
  const texts = stepTexts({ print: values.json ? null : (text) => console.log(printable(text)) });
  // Colour and whether a person can answer are read at the first line printed, not here: the first use of
  // process.stderr or process.stdin builds Node's stream machinery (~20 ms before the model request).
  const printer = toolCallPrinter({ write: (line) => console.error(line), color: () => useColor(process.stderr) });
  const asker = approvalAsker({ interactive: () => process.stdin.isTTY === true && values.input !== '-' });
  const session = await openSessionFromFlags({
    graceMs,
    onApproval: (record) => asker.ask(record),
    onApprovalResolved: (record) => asker.resolved(record),
    ...values,
    quiet: values.json === true,
    targetLifecycle: false,
    peerObserver: (agent) =>
      values.json
        ? undefined
        : {
            ...toolCallPrinter({
              write: (line) => console.error(`[${agent}]${line}`),
              color: () => useColor(process.stderr),
            }),
            onModelRetry: (event) => console.error(`[${agent}]${modelRetryLine(event)}`),
          },
    observer: {
      ...(values.json ? {} : { ...printer, onModelRetry: (event) => console.error(modelRetryLine(event)) }),
      onTextDelta: texts.push,
      onStepEnd: texts.stepEnd,
      onToolCallStart: (event) => {
        // A step's text comes before its tool calls: it is printed before their lines.
        texts.cut();
        if (!values.json) printer.onToolCallStart?.(event);
      },
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
  if (!session) return 1;
  asker.deliver = (record, answer) => session.answerApproval(record, answer);
  asker.bundleDir = session.bundle.rootDir;
  if (values.watch && session.mode !== 'swarm') {
    await session.close();
    throw new UsageError('--watch needs a bundle that declares a Swarm', 'run');
  }
  const controller = new AbortController();
  const signals = session.mode === 'swarm' ? handleShutdownSignals(session) : null;
  if (!signals) process.once('SIGINT', () => controller.abort('interrupted'));
  let result: TurnResult | undefined;
  // --watch watches from the start, so a changeset an agent commits during the first turn is activated after it.
  const ended = Promise.withResolvers<void>();
  const firstTurn = Promise.withResolvers<void>();
  const watching =
    values.watch && signals
      ? watchSwarm({
          session,
          swarm: values.swarm,
          stopped: Promise.race([signals.stopped, ended.promise]),
          announceAfter: firstTurn.promise,
          log: (line) => console.error(line),
        })
      : null;
  try {
    if (input !== undefined) result = await session.runTurn(input, { source: 'cli', signal: controller.signal });
    if (result) {
      texts.turnEnd(result.text);
      printResult(result, { json: values.json === true, agent: session.agentName, toolCalls, texts: texts.all });
    }
    firstTurn.resolve();
    await watching;
  } catch (thrown) {
    // Killed by a second Ctrl-C: the turn could not finish; the signal decides the exit status.
    if (signals?.exitCode === undefined) throw thrown;
    console.error(`[interrupted] ${printable((thrown as Error).message)}`);
  } finally {
    firstTurn.resolve();
    ended.resolve();
    await watching?.catch(() => {});
    asker.close();
    await session.close();
    signals?.dispose();
  }
  return signals?.exitCode ?? (result ? exitCodeFor(result) : 0);
}

/**
 * Shows approvals on standard error. On a terminal they are answered there, one at a time; otherwise the run
 * waits for an answer given elsewhere (`gdn approvals`), which the instance picks up from its database.
 */
function approvalAsker(options: { interactive: () => boolean }) {
  let terminal: { color: boolean; interactive: boolean } | undefined;
  const onTerminal = () => {
    terminal ??= { color: useColor(process.stderr), interactive: options.interactive() };
    return terminal;
  };
  let deliver: ((record: ApprovalRecord, answer: ApprovalAnswer) => Promise<boolean>) | null = null;
  let lines: Interface | null = null;
  // Named in the hint, so the command works pasted into any other terminal, whatever its directory.
  let bundleDir: string | undefined;
  const show = (head: ApprovalRecord) => {
    const { color, interactive } = onTerminal();
    console.error(describeApproval(head, color, { choices: interactive }));
    if (!interactive) {
      const bundle = bundleDir === undefined ? '' : ` --bundle ${shellWord(bundleDir)}`;
      console.error(
        `  answer elsewhere: gdn approvals approve ${head.id}${bundle} [--conversation] | gdn approvals deny ${head.id}${bundle} --reason TEXT`,
      );
      return;
    }
    // Required here: only a run that asks a person on a terminal needs node:readline.
    const { createInterface } = require('node:readline') as typeof import('node:readline');
    const reading = lines !== null;
    lines ??= createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const ask = (interface_: Interface) =>
      interface_.question('approve> ', (line) => {
        const answer = parseApprovalAnswer(line);
        // The head may have ended elsewhere meanwhile: ask about whatever heads the queue now.
        if (!answer || !deliver || queue.head?.id !== head.id) return queue.head && show(queue.head);
        deliver(head, answer).catch((thrown: Error) =>
          console.error(`approval ${head.id}: ${printable(thrown.message)}`),
        );
        queue.take();
      });
    if (reading) return ask(lines);
    // Lines typed during the run before this question are read first, and dropped: they do not answer it.
    const opened = lines;
    afterTypedAhead(() => queue.head?.id === head.id && ask(opened));
  };
  const queue = new ApprovalQueue(show);
  return {
    /** How answers reach the instance (set once the session is open). */
    set deliver(value: (record: ApprovalRecord, answer: ApprovalAnswer) => Promise<boolean>) {
      deliver = value;
    },
    /** The bundle's directory, for the commands the hint shows (set once the session is open). */
    set bundleDir(value: string) {
      bundleDir = value;
    },
    ask: (record: ApprovalRecord) => queue.add(record),
    resolved(record: ApprovalRecord) {
      console.error(describeResolution(record, onTerminal().color));
      queue.remove(record.id);
    },
    close() {
      lines?.close();
    },
  };
}

/**
 * The text of each step, gathered from the streamed deltas and printed (when `print` is given) as soon as it is
 * complete: when the step's first tool call starts, or the step ends. A step whose text did not stream gives it
 * whole at its end; the turn's reply stands in when nothing streamed at all (a swarm agent that did not stream).
 */
function stepTexts(options: { print: ((text: string) => void) | null }) {
  const all: string[] = [];
  let current = '';
  let doneThisStep = false;
  const emit = (text: string) => {
    if (text.trim() === '') return;
    all.push(text);
    options.print?.(text);
  };
  const cut = () => {
    if (current !== '') doneThisStep = true;
    emit(current);
    current = '';
  };
  return {
    all,
    push: (delta: string) => {
      current += delta;
    },
    cut,
    stepEnd: (event: { outcome: { text: string } }) => {
      if (current === '' && !doneThisStep) emit(event.outcome.text);
      else cut();
      doneThisStep = false;
    },
    turnEnd: (reply: string) => {
      if (current !== '' || all.length > 0) cut();
      else emit(reply);
    },
  };
}

function printResult(
  result: TurnResult,
  options: {
    json: boolean;
    agent: string;
    toolCalls: { toolName: string; status: string; code?: string; durationMs: number }[];
    texts: string[];
  },
): void {
  const { toolCalls } = options;
  if (options.json) {
    printJson({ agent: options.agent, ...result, texts: options.texts, toolCalls });
  } else {
    // The error quotes the provider's words: no control character of theirs reaches the terminal.
    if (result.status !== 'completed')
      console.error(
        `[${result.status}] ${result.error ? `${result.error.code}: ${printable(result.error.message)}` : printable(result.reason ?? '')}`,
      );
    if (result.error?.suggestion) {
      console.error(`  suggestion: ${printable(absoluteDocsLinks(result.error.suggestion))}`);
      if (result.error.code in errorCodes) console.error(`  help: ${errorPageLink(result.error.code)}`);
    }
  }
}
