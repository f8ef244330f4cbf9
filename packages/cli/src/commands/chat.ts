import { createInterface } from 'node:readline';
import { GoondanError, type TurnResult } from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { handleShutdownSignals, openSessionFromFlags } from '../open-session.ts';
import { paint, UsageError, useColor } from '../terminal.ts';
import { toolCallPrinter } from '../tool-call-printer.ts';

export const chatHelp = `Usage: gdn chat [--agent A] [--instance K] [--bundle DIR]

Interactive chat in the terminal. The reply streams as the model writes it; each tool call shows as it runs
(name, short arguments, status, duration). The conversation is stored per instance and resumes next time.

  Ctrl-C during a turn   cancels the turn (tools see the abort); the conversation stays consistent
  Ctrl-C at the prompt   leaves (so do Ctrl-D and /exit)
  /reset                 starts the instance's conversation afresh

Options:
  --agent A      the agent to chat with (default: the Swarm's entryAgent, or the only Agent)
  --instance K   instance key: which conversation and workspace (default: "default")
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)
  --swarm NAME   the Swarm to run when the bundle declares several
  --grace MS     (swarm) how long agents may finish their current turn at shutdown (default 10000)

With a Swarm in the bundle, an Orchestrator runs each agent instance in a process of its own; tool calls of the
other agents show with their name. Leaving (or SIGTERM) shuts them down gracefully.`;

export async function chatCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'chat',
    argv,
    spec: {
      agent: { type: 'string' },
      instance: { type: 'string' },
      swarm: { type: 'string' },
      grace: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(chatHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'chat');
  const color = useColor();
  let streamed = false;
  const session = await openSessionFromFlags({
    ...values,
    peerObserver: (agent) =>
      toolCallPrinter({
        write: (line) => {
          if (streamed) process.stdout.write('\n');
          streamed = false;
          console.log(`[${agent}]${line}`);
        },
        color,
      }),
    observer: {
      ...toolCallPrinter({
        write: (line) => {
          if (streamed) process.stdout.write('\n');
          streamed = false;
          console.log(line);
        },
        color,
      }),
      onTextDelta: (text) => {
        if (!streamed) process.stdout.write(paint(`${agentLabel}> `, 'cyan', color));
        streamed = true;
        process.stdout.write(text);
      },
    },
  });
  if (!session) return 1;
  const agentLabel = session.agentName;
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
  const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
  let running: AbortController | null = null;
  const interrupt = () => {
    if (running) {
      running.abort('interrupted');
      return;
    }
    lines.close();
  };
  lines.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  const prompt = () => {
    if (interactive) lines.setPrompt(paint('you> ', 'bold', color));
    if (interactive) lines.prompt();
  };
  prompt();
  void signals?.stopped.then(() => lines.close());
  for await (const line of lines) {
    const text = line.trim();
    if (text === '/exit' || text === '/quit') break;
    if (text === '') {
      prompt();
      continue;
    }
    if (text === '/reset') {
      await session.reset();
      console.log(paint('Conversation cleared.', 'dim', color));
      prompt();
      continue;
    }
    running = new AbortController();
    streamed = false;
    let result: TurnResult;
    try {
      result = await session.runTurn(text, { source: 'chat', signal: running.signal });
    } catch (thrown) {
      // Swarm mode: the agent's process could not serve the turn (crashed, shutting down); the chat goes on.
      if (!(thrown instanceof GoondanError)) throw thrown;
      running = null;
      console.log(paint(`(${thrown.code}: ${thrown.message})`, 'red', color));
      prompt();
      continue;
    }
    running = null;
    if (streamed) process.stdout.write('\n');
    else if (result.text) console.log(`${paint(`${agentLabel}> `, 'cyan', color)}${result.text}`);
    if (result.status === 'cancelled') console.log(paint('(turn cancelled)', 'yellow', color));
    else if (result.status === 'max_steps') console.log(paint(`(${result.reason})`, 'yellow', color));
    else if (result.status === 'error')
      console.log(paint(`(${result.error?.code}: ${result.error?.message})`, 'red', color));
    prompt();
  }
  lines.close();
  process.off('SIGINT', interrupt);
  await session.close();
  signals?.dispose();
  return signals?.exitCode ?? 0;
}
