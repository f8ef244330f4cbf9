import { createInterface } from 'node:readline';
import { GoondanError, type TurnResult } from '@goondan/core';
import {
  APPROVAL_CHOICES,
  ApprovalQueue,
  afterTypedAhead,
  describeApproval,
  describeResolution,
  parseApprovalAnswer,
} from '../approval-prompt.ts';
import { boundLineLength, OVERLONG_LINE } from '../chat/bounded-lines.ts';
import { bracketedPaste } from '../chat/bracketed-paste.ts';
import { replyPrinter } from '../chat/reply-printer.ts';
import {
  readChatInput,
  type SlashCommand,
  slashCommandHelp,
  slashCommandUsage,
  unknownSlashCommand,
} from '../chat/slash-commands.ts';
import { thinkingSpinner } from '../chat/thinking-spinner.ts';
import { describeFiring, type ScheduledTurn, startChatScheduler } from '../chat-scheduler.ts';
import { parseCommandArgs } from '../cli-args.ts';
import { absoluteDocsLinks } from '../docs-link.ts';
import { graceFlag } from '../grace-flag.ts';
import { modelRetryLine } from '../model-retry-line.ts';
import { handleShutdownSignals, openSessionFromFlags } from '../open-session.ts';
import { STANDARD_INPUT_LIMIT_BYTES } from '../read-standard-input.ts';
import { paint, printable, UsageError, useColor } from '../terminal.ts';
import { toolCallPrinter } from '../tool-call-printer.ts';
import { checkUserFlag } from '../user-flag.ts';
import { watchSwarm } from '../watch-swarm.ts';

export const chatHelp = `Usage: gdn chat [--agent A] [--instance K] [--user ID] [--bundle DIR] [--swarm NAME] [--grace MS]

Interactive chat in the terminal. The reply streams as the model writes it (on a terminal rendered as Markdown,
block by block; into a pipe as written), with a spinner on standard error while the model thinks; each tool call
shows as it runs (name, short arguments, status, duration without the wait for an approval). The conversation is
stored per instance and resumes next time.

  Ctrl-C during a turn   cancels the turn (tools see the abort); the conversation stays consistent
  Ctrl-C at the prompt   leaves (so do Ctrl-D and /exit)
  a paste of many lines  is one message: press Enter after it to send it

Chat commands, handled here without calling the model (a mistyped one gets a "did you mean"):
  /help                  these commands
  /reset                 starts the instance's conversation afresh
  /tools                 the tools the agent sees
  /approvals             approvals still waiting for an answer
  /trace                 the last turn as a tree of steps, model calls and tool calls
  /exit                  leaves (also /quit)
  //text                 sends '/text' to the model

When a tool call needs approval (the agent's spec.permissions say ask), the chat shows the call and waits:
  y                      approve this call once
  a                      approve every call of this tool for the rest of the conversation
  n [reason]             deny it; the model is told the reason
Approvals of agents it called show here too. Unanswered approvals stay stored: leaving and coming back (or
'gdn approvals approve ID' from another terminal) goes on where the turn stopped.

Options:
  --agent A      the agent to chat with (default: the Swarm's entryAgent, or the only Agent)
  --instance K   instance key: which conversation and workspace (default: "default")
  --user ID      the person the turns act for: per-user OAuth grants are theirs, and agents asked act for them
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)
  --swarm NAME   the Swarm to run when the bundle declares several
  --grace MS     (swarm) how long agents may finish their current turn at shutdown (default 10000)

With a Swarm in the bundle, an Orchestrator runs each agent instance in a process of its own; tool calls of the
other agents show with their name. Leaving (or SIGTERM) shuts them down gracefully. When the bundle's git revision
moves (an agent's changeset is activated, a commit), the agents it changed restart between turns and are told.`;

export async function chatCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'chat',
    argv,
    spec: {
      agent: { type: 'string' },
      instance: { type: 'string' },
      user: { type: 'string' },
      swarm: { type: 'string' },
      grace: { type: 'string' },
    },
  });
  checkUserFlag(values.user, 'chat');
  const graceMs = graceFlag(values.grace, 'chat');
  if (values.help) {
    console.log(chatHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'chat');
  const color = useColor();
  const spinner = thinkingSpinner({ enabled: process.stderr.isTTY === true && process.env.TERM !== 'dumb' });
  const reply = replyPrinter({
    label: () => agentLabel,
    color,
    markdown: process.stdout.isTTY === true,
    write: (text) => {
      breakTypedLine();
      process.stdout.write(text);
    },
    // Read at each block: a terminal resized meanwhile gets replies wrapped to its new width.
    columns: () => (process.stdout.columns ? Math.min(process.stdout.columns, 100) : undefined),
  });
  // Typing while a turn runs: the spinner stops (it redrew the line over what was typed), and what is printed next
  // starts on a line of its own; the next prompt shows the typed text again, to finish and send.
  let typedDuringTurn = false;
  let typedLineBroken = false;
  const breakTypedLine = () => {
    if (!typedDuringTurn || typedLineBroken) return;
    typedLineBroken = true;
    process.stdout.write('\n');
  };
  const think = () => {
    if (!typedDuringTurn) spinner.start();
  };
  // Whatever is printed next ends the reply being streamed and the spinner.
  const endStream = () => {
    spinner.stop();
    if (reply.open) reply.end();
    breakTypedLine();
  };
  // Approvals raised by this agent or any agent it called, asked one at a time in arrival order.
  const approvals = new ApprovalQueue((head) => {
    endStream();
    console.log(describeApproval(head, color));
    // Input ended before this approval came: nobody is left to answer it, so the chat leaves as at end of input.
    if (inputEnded) return leaveWithPending();
    prompt();
  });
  /** Approvals answered elsewhere before their question was shown here (it is not shown then). */
  const resolvedBeforeShown = new Set<string>();
  let agentLabel = '';
  let turnRunning = false;
  // Whether the running turn streamed any text: a reply that did not stream is printed whole when the turn ends.
  let streamed = false;
  const printer = toolCallPrinter({
    write: (line) => {
      endStream();
      console.log(line);
    },
    color,
  });
  const session = await openSessionFromFlags({
    graceMs,
    ...values,
    peerObserver: (agent) => ({
      ...toolCallPrinter({
        write: (line) => {
          endStream();
          console.log(`[${agent}]${line}`);
        },
        color,
      }),
      onModelRetry: (event) => {
        endStream();
        console.log(paint(`[${agent}]${modelRetryLine(event)}`, 'dim', color));
      },
    }),
    observer: {
      ...printer,
      // The model thinks again after its tools answered (a new step): the spinner shows it.
      onToolCallEnd: (event) => {
        printer.onToolCallEnd?.(event);
        if (turnRunning && approvals.size === 0) think();
      },
      onStepStart: () => {
        if (turnRunning && approvals.size === 0 && !reply.open) think();
      },
      onModelRetry: (event) => {
        endStream();
        console.log(paint(modelRetryLine(event), 'dim', color));
      },
      onTextDelta: (text) => {
        streamed = true;
        spinner.stop();
        reply.push(text);
      },
    },
    // Lines typed while the turn kept the process busy are read first, as messages: only what is typed once the
    // question is on screen answers it (a 'y' typed ahead approved a call its person had not seen yet).
    onApproval: (record) =>
      afterTypedAhead(() => {
        if (!resolvedBeforeShown.delete(record.id)) approvals.add(record);
      }),
    onApprovalResolved: (record) => {
      endStream();
      console.log(describeResolution(record, color));
      if (!approvals.all.some((waiting) => waiting.id === record.id)) resolvedBeforeShown.add(record.id);
      approvals.remove(record.id);
    },
  });
  if (!session) return 1;
  agentLabel = session.agentName;
  const interactive = process.stdin.isTTY === true;
  const history = session.historyLength();
  // Swarm mode: SIGTERM shuts the agents down gracefully; Ctrl-C keeps its chat meaning (cancel the turn, leave).
  const signals = session.mode === 'swarm' ? handleShutdownSignals(session, ['SIGTERM']) : null;
  if (interactive) {
    console.log(
      paint(
        `Chatting with ${agentLabel} (instance ${session.instanceKey}${history ? `, ${history} messages so far` : ''}). /exit to leave.`,
        'dim',
        color,
      ),
    );
  }
  // Piped input is read a line at a time, none longer than what gdn run reads from standard input (16 MiB).
  const typedLines = interactive ? process.stdin : process.stdin.pipe(boundLineLength(STANDARD_INPUT_LIMIT_BYTES));
  const lines = createInterface({ input: typedLines, output: process.stdout, terminal: interactive });
  // A paste of several lines is one message (docs/cli.md#gdn-chat).
  const paste = bracketedPaste({
    input: process.stdin,
    output: process.stdout,
    enabled: interactive && process.stdout.isTTY === true,
  });
  let running: AbortController | null = null;
  let leaving = false;
  let inputEnded = false;
  let busy = false;
  const inputs: string[] = [];
  // Schedules of this instance that came due (docs/scheduler.md): run between typed lines, printed like them.
  const alarms: ScheduledTurn[] = [];
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const interrupt = () => {
    if (running) {
      running.abort('interrupted');
      return;
    }
    lines.close();
  };
  lines.on('SIGINT', interrupt);
  if (interactive) {
    // readline emits the keys it reads on stdin: a key pressed during a turn (not at an approval question).
    process.stdin.on('keypress', () => {
      if (!turnRunning || approvals.size > 0) return;
      typedDuringTurn = true;
      spinner.stop();
    });
  }
  process.on('SIGINT', interrupt);
  // The prompt is on screen, waiting for a line: leaving then (Ctrl-D, Ctrl-C) ends that line first.
  let atPrompt = false;
  let closed = false;
  function prompt() {
    // Input ended (Ctrl-D during a turn): no prompt any more, the chat ends once the turn has.
    if (!interactive || closed) return;
    lines.setPrompt(paint(approvals.size > 0 ? 'approve> ' : 'you> ', 'bold', color));
    lines.prompt();
    atPrompt = true;
  }

  /** Runs one turn (or the resumed one) and prints how it ended; false when the chat should go on. */
  const runTurn = async (start: (signal: AbortSignal) => Promise<TurnResult | null>, options = { spinner: true }) => {
    running = new AbortController();
    turnRunning = true;
    // What was typed during the last turn is in the prompt now: this turn starts with the spinner again.
    typedDuringTurn = false;
    typedLineBroken = false;
    streamed = false;
    // Not for the resume check at start, which usually finds nothing: a resumed turn's steps start the spinner.
    if (options.spinner) think();
    let result: TurnResult | null;
    try {
      result = await start(running.signal);
    } catch (thrown) {
      endStream();
      // Swarm mode: the agent's process could not serve the turn (crashed, shutting down); the chat goes on.
      if (!(thrown instanceof GoondanError)) throw thrown;
      console.log(paint(`(${thrown.code}: ${printable(thrown.message)})`, 'red', color));
      return;
    } finally {
      running = null;
      turnRunning = false;
      spinner.stop();
    }
    if (!result) return;
    if (reply.open) reply.end();
    // Only a reply the model sent whole: a streamed one is on screen already (a turn cancelled after a step with
    // tool calls has that step's text as its result, printed before the calls).
    else if (result.text && !streamed) reply.whole(result.text);
    if (result.status === 'cancelled') console.log(paint('(turn cancelled)', 'yellow', color));
    else if (result.status === 'max_steps') console.log(paint(`(${printable(result.reason ?? '')})`, 'yellow', color));
    else if (result.status === 'error') {
      console.log(paint(`(${result.error?.code}: ${printable(result.error?.message ?? '')})`, 'red', color));
      if (result.error?.suggestion)
        console.log(`  suggestion: ${printable(absoluteDocsLinks(result.error.suggestion))}`);
    }
  };

  const pump = async () => {
    if (busy) return;
    busy = true;
    try {
      while ((inputs.length > 0 || alarms.length > 0) && !leaving) {
        const alarm = alarms.shift();
        if (alarm) {
          endStream();
          console.log(paint(describeFiring(alarm.event), 'yellow', color));
          let failure: unknown;
          await runTurn((signal) =>
            session.runEvent(alarm.event, { signal }).catch((thrown) => {
              failure = thrown;
              throw thrown;
            }),
          );
          alarm.settle(failure);
          prompt();
          continue;
        }
        const line = inputs.shift()!;
        if (line === OVERLONG_LINE) {
          console.log(
            paint(
              `(a line of more than ${STANDARD_INPUT_LIMIT_BYTES / 1024 / 1024} MiB was not sent: put a large input in a file the agent can read)`,
              'yellow',
              color,
            ),
          );
          continue;
        }
        const input = readChatInput(line);
        if (input.type === 'command' && input.command === '/exit') {
          leaving = true;
          break;
        }
        if (input.type === 'unknown') {
          console.log(paint(printable(unknownSlashCommand(input)), 'yellow', color));
          prompt();
          continue;
        }
        if (input.type === 'arguments') {
          // What was typed is quoted: an escape sequence in it (piped input) must not reach the terminal.
          console.log(paint(printable(slashCommandUsage(input)), 'yellow', color));
          prompt();
          continue;
        }
        if (input.type === 'command') {
          await runSlashCommand(input.command);
          prompt();
          continue;
        }
        if (input.text === '') {
          prompt();
          continue;
        }
        await runTurn((signal) => session.runTurn(input.text, { source: 'chat', signal }));
        prompt();
      }
    } finally {
      busy = false;
    }
    if (leaving || inputEnded) finish();
  };

  /** The chat's own commands: answered here, the model is not called. */
  const runSlashCommand = async (command: SlashCommand) => {
    const flags = ['--bundle', session.bundle.rootDir, '--agent', agentLabel];
    try {
      switch (command) {
        case '/exit':
          return;
        case '/help':
          console.log(slashCommandHelp(APPROVAL_CHOICES));
          return;
        case '/reset':
          await session.reset();
          console.log(paint('Conversation cleared.', 'dim', color));
          return;
        case '/tools': {
          const { toolsCommand } = await import('./tools.ts');
          await toolsCommand(['list', ...flags]);
          return;
        }
        case '/approvals': {
          const { approvalsCommand } = await import('./approvals.ts');
          await approvalsCommand(['list', '--bundle', session.bundle.rootDir]);
          return;
        }
        case '/trace': {
          const { traceCommand } = await import('./trace.ts');
          await traceCommand([...flags, '--instance', session.instanceKey, '--limit', '1']);
          return;
        }
      }
    } catch (thrown) {
      const error = thrown as GoondanError;
      console.log(paint(`(${error.code ?? 'error'}: ${printable(String(error.message))})`, 'red', color));
    }
  };

  const answer = (line: string) => {
    const head = approvals.head!;
    // /exit (or /quit) at an approval prompt leaves as end of input does: the approval stays stored.
    const typed = readChatInput(line);
    if (typed.type === 'command' && typed.command === '/exit') {
      lines.close();
      return;
    }
    // Help is help at the question too: the commands, then what this prompt takes.
    if (typed.type === 'command' && typed.command === '/help') {
      console.log(slashCommandHelp(APPROVAL_CHOICES));
      console.log(paint(`Answer the question above: ${APPROVAL_CHOICES}.`, 'yellow', color));
      prompt();
      return;
    }
    // A pasted block is no answer, whatever its first word: its person meant it for the model, or by mistake.
    const given = line.includes('\n') ? null : parseApprovalAnswer(line);
    if (!given) {
      console.log(paint(`Answer ${APPROVAL_CHOICES}.`, 'yellow', color));
      prompt();
      return;
    }
    session.answerApproval(head, given).then(
      (delivered) => {
        if (!delivered)
          console.log(
            paint(
              `(${printable(`${head.agent}/${head.instanceKey}`)} is not running; the approval stays pending)`,
              'red',
              color,
            ),
          );
      },
      (thrown: Error) =>
        console.log(paint(`(${(thrown as GoondanError).code ?? 'error'}: ${printable(thrown.message)})`, 'red', color)),
    );
    approvals.take();
  };

  /**
   * Nobody is left to answer (end of input, /exit at an approval prompt): pending approvals stay stored, named here,
   * and the turn resumes at the next `gdn chat` (or `gdn run`) of the instance.
   */
  let pendingReported = false;
  function leaveWithPending() {
    if (!pendingReported) {
      pendingReported = true;
      const waiting = approvals.all.map((record) =>
        printable(`${record.id} (${record.agent}/${record.instanceKey} ${record.toolName})`),
      );
      console.log(
        paint(
          `(${waiting.length} approval(s) still pending: ${waiting.join(', ')}; answer with 'gdn approvals approve ID' or in the next 'gdn chat'; the turn goes on then)`,
          'yellow',
          color,
        ),
      );
      // Lines read after the turn's input wait for the turn, which waits for the approval: they are not sent.
      const unsent = inputs.filter((line) => line.trim() !== '');
      if (unsent.length > 0) {
        const first = printable(unsent[0]!.length > 60 ? `${unsent[0]!.slice(0, 60)}…` : unsent[0]!);
        console.log(paint(`(${unsent.length} line(s) after it not sent, the first: '${first}')`, 'yellow', color));
      }
    }
    finish();
  }

  lines.on('line', (typed) => {
    const line = paste.take(typed);
    if (line === null) return;
    atPrompt = false;
    if (approvals.size > 0) return answer(line);
    inputs.push(line);
    void pump();
  });
  lines.on('close', () => {
    closed = true;
    if (atPrompt && interactive) process.stdout.write('\n');
    atPrompt = false;
    inputEnded = true;
    if (approvals.size > 0) leaveWithPending();
    else if (!busy) finish();
  });
  void signals?.stopped.then(() => lines.close());
  // A revision activated meanwhile (a changeset an agent committed) is picked up between turns, as --watch does.
  const left = Promise.withResolvers<void>();
  const watching = signals
    ? watchSwarm({
        session,
        swarm: values.swarm,
        revisionsOnly: true,
        stopped: left.promise,
        log: (line) => console.error(paint(line, 'dim', useColor(process.stderr))),
      })
    : null;
  // A turn the last session left waiting for approval goes on first.
  busy = true;
  await runTurn((signal) => session.resume({ signal }), { spinner: false });
  busy = false;
  prompt();
  void pump();
  const scheduler = startChatScheduler({
    session,
    runTurn: (turn) => {
      alarms.push(turn);
      void pump();
    },
    // A warning quotes why a firing failed (another agent's words): without control characters.
    warn: (line) => console.error(paint(printable(line), 'dim', useColor(process.stderr))),
  });
  await finished;
  await scheduler.stop();
  for (const alarm of alarms.splice(0)) alarm.settle(new Error('the chat ended before the turn ran'));
  left.resolve();
  await watching?.catch(() => {});
  lines.close();
  paste.dispose();
  process.off('SIGINT', interrupt);
  await session.close();
  signals?.dispose();
  return signals?.exitCode ?? 0;
}
