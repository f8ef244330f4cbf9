// One writer per agent instance: a second `gdn run` on an instance another process is running is refused with
// E_INSTANCE_BUSY (naming the first), writes nothing, and the lock of a process killed with SIGKILL is taken over.
import { afterAll, describe, expect, test } from 'bun:test';
import { ConversationStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import {
  agentBundle,
  type ChatMessage,
  chatBodies,
  cleanupTempDirs,
  gdn,
  scriptedModel,
  serverModel,
  setModel,
  startGdn,
  textOf,
} from './helpers.ts';

afterAll(cleanupTempDirs);

/** Roles of the stored conversation of helper/<instance>, read as any other process may while it runs. */
function storedRoles(bundle: string, instanceKey: string): string[] {
  const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey });
  const db = openInstanceDatabase(databaseFile);
  try {
    return new ConversationStore(db).load().map((message) => message.data.role);
  } finally {
    db.close();
  }
}

const waitLong = { id: 'call_wait', name: 'slow__wait', args: { ms: 60000 } };

describe('one writer per instance', () => {
  test('a second gdn run on a running instance gets E_INSTANCE_BUSY; after kill -9 the next run takes over', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'Waiting.', toolCalls: [waitLong] }, { text: 'Done.' }]));
    const first = startGdn(['run', '--bundle', bundle, '--instance', 'shared', '--input', 'first writer']);
    try {
      await first.waitForStderr('⚙ slow__wait', 30_000);
      const second = await gdn(['run', '--bundle', bundle, '--instance', 'shared', '--input', 'second writer']);
      expect(second.exitCode).toBe(1);
      expect(second.stderr).toContain('E_INSTANCE_BUSY');
      expect(second.stderr).toContain('helper/shared');
      expect(second.stderr).toContain(`pid ${first.proc.pid} (gdn run)`);
      // Another instance of the same agent is not affected: it runs up to the same tool call.
      const other = startGdn(['run', '--bundle', bundle, '--instance', 'other', '--input', 'hi']);
      await other.waitForStderr('⚙ slow__wait', 30_000);
      other.proc.kill('SIGKILL');
      await other.finish();
    } finally {
      first.proc.kill('SIGKILL');
      await first.finish();
    }
    // The lock died with its holder; the next run sees one coherent conversation, without the refused input.
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'Carrying on.' }] });
    try {
      await setModel(bundle, serverModel(server.url));
      const next = await gdn(['run', '--bundle', bundle, '--instance', 'shared', '--input', 'third writer']);
      expect(next.stderr).not.toContain('E_INSTANCE_BUSY');
      expect(next.exitCode).toBe(0);
      const messages: ChatMessage[] = chatBodies(server.requests)[0]!.messages;
      expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
      expect(messages.map(textOf).join('\n')).not.toContain('second writer');
      expect(messages[3]!.tool_call_id).toBe('call_wait');
      expect(textOf(messages[3]!)).toContain('E_TOOL_ABORTED');
    } finally {
      await server.close();
    }
  });

  test('gdn tools call beside a running gdn run calls the tool and leaves the conversation alone', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'Waiting.', toolCalls: [waitLong] }, { text: 'Done.' }]));
    const first = startGdn(['run', '--bundle', bundle, '--instance', 'shared', '--input', 'first writer']);
    try {
      await first.waitForStderr('⚙ slow__wait', 30_000);
      const call = await gdn([
        'tools',
        'call',
        '--bundle',
        bundle,
        '--instance',
        'shared',
        'calc__add',
        '{"a":1,"b":2}',
      ]);
      expect(call.stderr).not.toContain('E_INSTANCE_BUSY');
      expect(call.exitCode).toBe(0);
      expect(call.stdout).toContain('3');
      // The running turn's call is still open: nothing answered it behind the writer's back.
      expect(storedRoles(bundle, 'shared')).toEqual(['user', 'assistant']);
    } finally {
      first.proc.kill('SIGKILL');
      await first.finish();
    }
    const server = await startOpenAICompatibleServer({ responses: [{ text: 'Carrying on.' }] });
    try {
      await setModel(bundle, serverModel(server.url));
      expect((await gdn(['run', '--bundle', bundle, '--instance', 'shared', '--input', 'next'])).exitCode).toBe(0);
      // Exactly one result for the killed call: the tools call did not answer it while the run was waiting.
      const roles = chatBodies(server.requests)[0]!.messages.map((message) => message.role);
      expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    } finally {
      await server.close();
    }
  });
});
