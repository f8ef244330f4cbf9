import { expect, test } from 'bun:test';
import { readChatInput, slashCommandHelp, slashCommandUsage, unknownSlashCommand } from './slash-commands.ts';

test('chat lines: messages, the chat commands, //text and mistyped commands with a guess', () => {
  expect(readChatInput('  hello there ')).toEqual({ type: 'message', text: 'hello there' });
  for (const command of ['/help', '/reset', '/tools', '/approvals', '/trace', '/exit'] as const)
    expect(readChatInput(command)).toEqual({ type: 'command', command });
  expect(readChatInput('/quit')).toEqual({ type: 'command', command: '/exit' });
  expect(readChatInput('/TRACE')).toEqual({ type: 'command', command: '/trace' });
  expect(readChatInput('/reset  extra words ')).toEqual({ type: 'arguments', command: '/reset', args: 'extra words' });
  expect(readChatInput('/exit now')).toEqual({ type: 'command', command: '/exit' });
  expect(slashCommandUsage({ command: '/tools', args: 'foo' })).toBe(
    "/tools takes no arguments (got 'foo'). Usage: /tools — the tools the agent sees (its catalog), as `gdn tools list` shows them (E_CLI_USAGE).",
  );
  expect(readChatInput('//etc/hosts is read-only?')).toEqual({ type: 'message', text: '/etc/hosts is read-only?' });
  expect(readChatInput('/etc/hosts')).toEqual({ type: 'message', text: '/etc/hosts' });
  const typo = readChatInput('/rset');
  expect(typo).toEqual({ type: 'unknown', name: '/rset', guess: '/reset' });
  expect(unknownSlashCommand({ name: '/rset', guess: '/reset' })).toBe(
    'Unknown command /rset. Did you mean /reset? /help lists them (E_CLI_UNKNOWN_COMMAND).',
  );
  expect(readChatInput('/zzzzzz')).toEqual({ type: 'unknown', name: '/zzzzzz', guess: undefined });
  const help = slashCommandHelp('y = approve');
  for (const command of ['/help', '/reset', '/tools', '/approvals', '/trace', '/exit', '//text'])
    expect(help).toContain(`  ${command} `);
});
