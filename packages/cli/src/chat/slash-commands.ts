import { closestName } from '@goondan/core';

/** The commands `gdn chat` handles itself, without calling the model. */
export const slashCommands = {
  '/help': 'these commands, and how to answer an approval',
  '/reset': "start the instance's conversation afresh",
  '/tools': 'the tools the agent sees (its catalog), as `gdn tools list` shows them',
  '/approvals': 'approvals still waiting for an answer (this bundle)',
  '/trace': 'the last turn as a tree of steps, model calls and tool calls',
  '/exit': 'leave (also /quit, Ctrl-D, Ctrl-C at the prompt)',
} as const;

export type SlashCommand = keyof typeof slashCommands;

/** How a typed line is read: a message for the model, one of the chat's own commands, or a mistyped command. */
export type ChatInput =
  | { type: 'message'; text: string }
  | { type: 'command'; command: SlashCommand }
  | { type: 'arguments'; command: SlashCommand; args: string }
  | { type: 'unknown'; name: string; guess: SlashCommand | undefined };

/**
 * A line whose first word is `/word` is a chat command; `//text` sends `/text` to the model (a message that must
 * start with a slash); any other line is a message. `/quit` is `/exit`. The commands take no arguments: a command
 * with words after it is `arguments` (answered with its usage), except `/exit`, which leaves anyway.
 */
export function readChatInput(line: string): ChatInput {
  const text = line.trim();
  if (text.startsWith('//')) return { type: 'message', text: text.slice(1) };
  const match = /^\/([A-Za-z][\w-]*)(?:\s+|$)/.exec(text);
  const word = match?.[1];
  if (word === undefined) return { type: 'message', text };
  const args = text.slice(match![0].length).trim();
  const name = `/${word.toLowerCase()}`;
  if (name === '/quit' || name === '/exit') return { type: 'command', command: '/exit' };
  if (name in slashCommands)
    return args
      ? { type: 'arguments', command: name as SlashCommand, args }
      : { type: 'command', command: name as SlashCommand };
  return { type: 'unknown', name: `/${word}`, guess: closestName(name, Object.keys(slashCommands)) as SlashCommand };
}

/** What `/help` prints. */
export function slashCommandHelp(approvalChoices: string): string {
  const width = Math.max(...Object.keys(slashCommands).map((name) => name.length));
  return [
    'Chat commands (handled here, the model never sees them):',
    ...Object.entries(slashCommands).map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
    `  ${'//text'.padEnd(width)}  send a message that starts with '/'`,
    `When a tool call waits for approval: ${approvalChoices}.`,
  ].join('\n');
}

/** The line for a mistyped command: `Unknown command /rset. Did you mean /reset? /help lists them.` */
export function unknownSlashCommand(input: { name: string; guess: string | undefined }): string {
  return `Unknown command ${input.name}.${input.guess ? ` Did you mean ${input.guess}?` : ''} /help lists them (E_CLI_UNKNOWN_COMMAND).`;
}

/** The line for a command given arguments it does not take: `/reset takes no arguments (got 'extra'). Usage: …`. */
export function slashCommandUsage(input: { command: SlashCommand; args: string }): string {
  return `${input.command} takes no arguments (got '${input.args}'). Usage: ${input.command} — ${slashCommands[input.command]} (E_CLI_USAGE).`;
}
