import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PermissionPolicy } from '@goondan/core';
import { parseAllDocuments } from 'yaml';
import { assistantBundleDir } from '../../src/assistant-bundle-dir.ts';
import { gitBundle, removeGitBundles } from '../../test/git-bundle.ts';
import { handlers } from './index.ts';

afterEach(removeGitBundles);

const bundle = () => gitBundle({ prefix: 'gdn-settings-', tools: 'Tool/settings, Tool/datetime' });

type Out = Record<string, unknown>;

describe('settings (real git)', () => {
  test('set / get / list: a label of the calling Agent, committed; secrets and bad keys refused', async () => {
    const { ctx, yaml } = await bundle();
    expect(await handlers.set(ctx, { key: 'wakeWord', value: '자비스' })).toMatchObject({ status: 'ok' });
    expect(await yaml()).toContain('settings.assistant.goondan.ai/wakeWord: 자비스');
    expect(await yaml()).toContain('# the model');
    expect(await handlers.get(ctx, { key: 'wakeWord' })).toMatchObject({ value: '자비스', set: true });
    expect(await handlers.get(ctx, { key: 'ttsSpeed' })).toMatchObject({ value: null, set: false });
    expect(((await handlers.list(ctx)) as Out).settings).toEqual({ wakeWord: '자비스' });
    const before = await yaml();
    for (const key of ['openaiApiKey', 'bad key', 'activeAgentName'])
      await expect(handlers.set(ctx, { key, value: 'x' })).rejects.toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(await yaml()).toBe(before);
  });

  test('MCP servers: add (Extension/mcp created), disable, rename, remove; a duplicate changes nothing', async () => {
    const { dir, ctx, yaml } = await bundle();
    const added = await handlers.mcp_add_server(ctx, {
      name: 'files',
      command: 'npx',
      arguments: ['-y', 'files-mcp'],
      environment: { ROOT: '/data' },
    });
    expect(added).toMatchObject({ status: 'ok', result: { id: 'files' } });
    const config = () =>
      (parseAllDocuments(readFileSync(join(dir, 'goondan.yaml'), 'utf8')) as { toJS(): Out }[])[0]?.toJS() as {
        spec: { extensions: { ref: string; config: Out }[] };
      };
    expect(config().spec.extensions).toEqual([
      {
        ref: 'Extension/mcp',
        config: { servers: [{ name: 'files', command: 'npx', args: ['-y', 'files-mcp'], env: { ROOT: '/data' } }] },
      },
    ]);
    const before = await yaml();
    await expect(handlers.mcp_add_server(ctx, { name: 'files', command: 'x' })).rejects.toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
    await expect(handlers.mcp_add_server(ctx, { name: 'Bad__name', command: 'x' })).rejects.toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
    expect(await yaml()).toBe(before);
    expect(await handlers.mcp_update_server(ctx, { id: 'files', is_enabled: false, name: 'docs' })).toMatchObject({
      status: 'ok',
      result: { id: 'docs', is_enabled: false },
    });
    expect(config().spec.extensions[0]?.config).toEqual({
      servers: [],
      disabledServers: [{ name: 'docs', command: 'npx', args: ['-y', 'files-mcp'], env: { ROOT: '/data' } }],
    });
    expect(((await handlers.list(ctx)) as Out).mcpServers).toEqual([
      {
        id: 'docs',
        name: 'docs',
        command: 'npx',
        url: null,
        arguments: ['-y', 'files-mcp'],
        environment: ['ROOT'],
        is_enabled: false,
      },
    ]);
    await expect(handlers.mcp_remove_server(ctx, { id: 'files' })).rejects.toMatchObject({ code: 'E_REF_UNRESOLVED' });
    expect(await handlers.mcp_remove_server(ctx, { id: 'docs' })).toMatchObject({ status: 'ok' });
    expect(config().spec.extensions[0]?.config).toEqual({ servers: [], disabledServers: [] });
  });

  test('adding or changing an MCP server is restricted (asks under default permissions); removing is sensitive', () => {
    const documents = parseAllDocuments(readFileSync(join(assistantBundleDir, 'goondan.yaml'), 'utf8')) as {
      toJS(): { kind: string; metadata: { name: string }; spec: { category: string; exports: Out[] } };
    }[];
    const tool = documents.map((document) => document.toJS()).find((doc) => doc.metadata.name === 'settings');
    const policy = new PermissionPolicy();
    const verdict = (name: string) => {
      const item = tool?.spec.exports.find((entry) => entry.name === name);
      const category = (item?.category ?? tool?.spec.category) as 'safe' | 'sensitive' | 'restricted';
      return [category, policy.decide(`settings__${name}`, category).decision];
    };
    expect(verdict('mcp_add_server')).toEqual(['restricted', 'ask']);
    expect(verdict('mcp_update_server')).toEqual(['restricted', 'ask']);
    expect(verdict('mcp_remove_server')).toEqual(['sensitive', 'allow']);
    expect(verdict('set')).toEqual(['sensitive', 'allow']);
  });
});
