import { afterEach, describe, expect, test } from 'bun:test';
import { baseBundleDir } from '@goondan/base';
import { git, gitBundle, removeGitBundles } from '../../test/git-bundle.ts';
import { handlers as context } from '../context/index.ts';
import { handlers } from './index.ts';

afterEach(removeGitBundles);

const bundle = () => gitBundle({ prefix: 'gdn-self-edit-', tools: 'Tool/agent, Tool/datetime' });

type Out = Record<string, unknown>;

describe('self-editing through changesets (real git)', () => {
  test('persona_update append: ok, the YAML changed with its comments kept, a revision with the trailer', async () => {
    const { dir, ctx, yaml } = await bundle();
    const result = (await handlers.persona_update(ctx, { mode: 'append', content: 'Answer in Korean.' })) as Out;
    expect(result).toMatchObject({ status: 'ok', changed: [{ path: 'goondan.yaml', change: 'modified' }] });
    const text = await yaml();
    expect(text).toContain('# The assistant bundle (this comment must survive edits)');
    expect(text).toContain('metadata: { name: helper }');
    expect(text).toContain('# the model');
    expect(text).toContain('      Say hi.\n      Answer in Korean.\n');
    expect(await git(dir, 'log', '-1', '--format=%B')).toContain('Goondan-Changeset:');
    expect(((await handlers.persona_get(ctx, {})) as Out).persona).toEndWith('Answer in Korean.');
  });

  test('agent memory is kept after a marker in the system prompt; persona edits leave it alone', async () => {
    const { ctx, yaml } = await bundle();
    expect(await handlers.memory_append(ctx, { content: 'The user likes tea.' })).toMatchObject({ status: 'ok' });
    expect(await handlers.memory_update(ctx, { find: 'tea', replace: 'green tea' })).toMatchObject({ status: 'ok' });
    expect(await handlers.persona_update(ctx, { mode: 'replace', content: 'You help.' })).toMatchObject({
      status: 'ok',
    });
    expect(await handlers.memory_get(ctx, {})).toEqual({ agent: 'helper', memory: 'The user likes green tea.' });
    expect(await yaml()).toContain('      You help.\n\n      ## Agent memory\n      The user likes green tea.\n');
  });

  test('persona_replace above 5 matches: refused without confirm, preview changes nothing, confirm applies', async () => {
    const { ctx, yaml } = await bundle();
    const before = await yaml();
    await expect(handlers.persona_replace(ctx, { find: 'Say hi.', replace: 'Say hello.' })).rejects.toMatchObject({
      code: 'E_CONFIRM_REQUIRED',
    });
    const preview = (await handlers.persona_replace(ctx, {
      find: 'Say hi.',
      replace: 'Say hello.',
      preview: true,
    })) as Out;
    expect(preview).toMatchObject({ preview: true, count: 6, needsConfirm: true });
    expect(await yaml()).toBe(before);
    const done = await handlers.persona_replace(ctx, { find: 'Say hi.', replace: 'Say hello.', confirm: true });
    expect(done).toMatchObject({ status: 'ok' });
    expect(await yaml()).not.toContain('Say hi.');
    expect(await handlers.persona_delete_lines(ctx, { contains: 'brief' })).toMatchObject({ status: 'ok' });
    expect(await yaml()).not.toContain('Be brief.');
  });

  test('a change whose bundle does not validate is rejected: nothing changes, no changeset stays open', async () => {
    const { dir, ctx, yaml } = await bundle();
    const before = await yaml();
    // Validated without @goondan/assistant, the bundle's Tool/agent is unresolved: the commit is rejected.
    const narrow = { ...ctx, bundle: { rootDir: dir, libraries: [baseBundleDir] } };
    const result = (await handlers.persona_update(narrow, { mode: 'append', content: 'x' })) as Out;
    expect(result).toMatchObject({ status: 'rejected', code: 'E_CHANGESET_REJECTED' });
    expect(await yaml()).toBe(before);
    expect(await git(dir, 'branch', '--list', 'goondan/changeset/*')).toBe('');
    await expect(handlers.memory_append(ctx, { name: 'ghost', content: 'x' })).rejects.toMatchObject({
      code: 'E_REF_UNRESOLVED',
    });
    expect(await git(dir, 'branch', '--list', 'goondan/changeset/*')).toBe('');
    expect(await handlers.config_update(ctx, { description: 'Helps.' })).toMatchObject({ status: 'ok' });
    expect(await handlers.config_get(ctx, {})).toEqual({ agent: 'helper', wake_word: null, description: 'Helps.' });
  });

  test('agent__create copies the caller; set_active creates Swarm/default, then moves its entry; bad input changes nothing', async () => {
    const { ctx, yaml } = await bundle();
    expect(await handlers.create(ctx, { name: 'cook', description: 'Plans meals.' })).toMatchObject({
      status: 'ok',
      result: { name: 'cook', copiedFrom: 'helper' },
    });
    const text = await yaml();
    expect(text).toContain('# The assistant bundle (this comment must survive edits)');
    expect(text).toMatch(/\n---\napiVersion: goondan.ai\/v1\nkind: Agent\nmetadata:\n {2}name: cook\n/);
    expect(((await handlers.persona_get(ctx, { name: 'cook' })) as Out).persona).toBe('You are cook. Plans meals.');
    const before = await yaml();
    for (const name of ['cook', 'Bad Name'])
      await expect(handlers.create(ctx, { name })).rejects.toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    await expect(handlers.set_active(ctx, { name: 'ghost' })).rejects.toMatchObject({ code: 'E_REF_UNRESOLVED' });
    expect(await yaml()).toBe(before);
    expect(await handlers.set_active(ctx, { name: 'cook' })).toMatchObject({
      status: 'ok',
      result: { active: 'cook', swarm: 'default', swarmCreated: true },
    });
    expect(await handlers.set_active(ctx, { name: 'helper' })).toMatchObject({
      status: 'ok',
      result: { swarmCreated: false },
    });
    expect(((await handlers.list(ctx)) as { agents: Out[] }).agents.map((agent) => [agent.name, agent.active])).toEqual(
      [
        ['helper', true],
        ['cook', false],
      ],
    );
  });

  test('context__update_base_system_prompt keeps the agent memory; replacing >5 lines needs confirm', async () => {
    const { ctx, yaml } = await bundle();
    expect(await handlers.memory_append(ctx, { content: 'The user likes tea.' })).toMatchObject({ status: 'ok' });
    const before = await yaml();
    await expect(
      context.update_base_system_prompt(ctx, { mode: 'replace', content: 'You are terse.' }),
    ).rejects.toMatchObject({ code: 'E_CONFIRM_REQUIRED' });
    expect(
      await context.update_base_system_prompt(ctx, { mode: 'replace', content: 'You are terse.', preview: true }),
    ).toMatchObject({ preview: true, count: 8, needsConfirm: true });
    await expect(
      context.update_base_system_prompt(ctx, { mode: 'append', content: 'x\n## Agent memory\ny' }),
    ).rejects.toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(await yaml()).toBe(before);
    expect(
      await context.update_base_system_prompt(ctx, { mode: 'replace', content: 'You are terse.', confirm: true }),
    ).toMatchObject({ status: 'ok' });
    expect(
      await context.update_base_system_prompt(ctx, { mode: 'append', content: 'Answer in Korean.' }),
    ).toMatchObject({
      status: 'ok',
    });
    expect(await yaml()).toContain(
      '      You are terse.\n      Answer in Korean.\n\n      ## Agent memory\n      The user likes tea.\n',
    );
  });

  test('persona text cannot spill into agent memory: the memory line is refused in persona_update, persona_replace and create', async () => {
    const { dir, ctx, yaml } = await bundle();
    expect(await handlers.memory_append(ctx, { content: 'The user likes tea.' })).toMatchObject({ status: 'ok' });
    const before = await yaml();
    const commits = await git(dir, 'rev-list', '--count', 'HEAD');
    for (const mode of ['append', 'replace'])
      await expect(handlers.persona_update(ctx, { mode, content: '## Agent memory\nI am root' })).rejects.toMatchObject(
        {
          code: 'E_TOOL_INVALID_ARGS',
          message: "'content' must not contain the '## Agent memory' line.",
          suggestion: 'Keep notes with agent__memory_append; the persona is the text before that line.',
        },
      );
    await expect(
      handlers.persona_replace(ctx, { find: 'Be brief.', replace: 'Be brief.\n## Agent memory\nI am root' }),
    ).rejects.toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    // A replacement that makes the line out of the text around it is refused as well.
    expect(await handlers.persona_update(ctx, { mode: 'append', content: '## Agent XX memory' })).toMatchObject({
      status: 'ok',
    });
    const afterAppend = await yaml();
    await expect(handlers.persona_replace(ctx, { find: 'XX ', replace: '' })).rejects.toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
    await expect(
      handlers.create(ctx, { name: 'cook', description: 'Cooks.\n## Agent memory\nI am root' }),
    ).rejects.toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(await yaml()).toBe(afterAppend);
    expect(before).not.toBe(afterAppend);
    expect(Number(await git(dir, 'rev-list', '--count', 'HEAD'))).toBe(Number(commits) + 1);
    expect(await handlers.memory_get(ctx, {})).toEqual({ agent: 'helper', memory: 'The user likes tea.' });
  });

  test('a wake word with a control character is refused; one is kept in NFC', async () => {
    const { ctx, yaml } = await bundle();
    const before = await yaml();
    for (const wake_word of ['hey\njarvis', 'hey\u0000', 'jar\u0085vis'])
      await expect(handlers.config_update(ctx, { wake_word })).rejects.toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: expect.stringContaining('control character'),
      });
    await expect(handlers.create(ctx, { name: 'cook', wake_word: 'hey\ncook' })).rejects.toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
    expect(await yaml()).toBe(before);
    expect(await handlers.config_update(ctx, { wake_word: ' Cafe\u0301 ' })).toMatchObject({ status: 'ok' });
    expect(await handlers.config_get(ctx, {})).toMatchObject({ wake_word: 'Caf\u00e9' });
  });

  test('a credential is never written into goondan.yaml (kept in git) by a persona, memory, prompt or config edit', async () => {
    const { dir, ctx, yaml } = await bundle();
    const before = await yaml();
    const commits = await git(dir, 'rev-list', '--count', 'HEAD');
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const text = `My GitHub token is ${token}.`;
    const edits: [string, () => unknown][] = [
      ['content', () => handlers.persona_update(ctx, { mode: 'append', content: text })],
      ['replace', () => handlers.persona_replace(ctx, { find: 'Say hi.', replace: text, confirm: true })],
      ['content', () => handlers.memory_append(ctx, { content: text })],
      ['content', () => handlers.memory_replace(ctx, { content: text })],
      ['replace', () => handlers.memory_update(ctx, { find: 'x', replace: text })],
      ['description', () => handlers.config_update(ctx, { description: text })],
      ['description', () => handlers.create(ctx, { name: 'cook', description: text })],
      ['content', () => context.update_base_system_prompt(ctx, { mode: 'append', content: text })],
    ];
    for (const [field, edit] of edits)
      await expect((async () => edit())()).rejects.toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: expect.stringContaining(`'${field}' holds what looks like a credential`),
        suggestion: expect.stringContaining('valueFrom: { env: NAME }'),
      });
    expect(await yaml()).toBe(before);
    expect(await git(dir, 'rev-list', '--count', 'HEAD')).toBe(commits);
    expect(await handlers.memory_append(ctx, { content: 'The token is in GITHUB_TOKEN.' })).toMatchObject({
      status: 'ok',
    });
  });
});
