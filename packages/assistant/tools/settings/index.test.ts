import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildToolName,
  type JsonObject,
  PermissionPolicy,
  ToolCatalog,
  ToolExecutor,
  type ToolExportSpec,
  ToolRegistry,
} from '@goondan/core';
import { parseAllDocuments } from 'yaml';
import { assistantBundleDir } from '../../src/assistant-bundle-dir.ts';
import { git, gitBundle, removeGitBundles } from '../../test/git-bundle.ts';
import { handlers } from './index.ts';

afterEach(removeGitBundles);

const bundle = () => gitBundle({ prefix: 'gdn-settings-', tools: 'Tool/settings, Tool/datetime' });

type Out = Record<string, unknown>;

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; suggestion: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; suggestion: string };
  }
  throw new Error('expected the call to be refused');
}

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

  test('a secret is refused by its key (the core judge and short words like pwd, auth) or its value; nothing is committed', async () => {
    const { dir, ctx, yaml } = await bundle();
    const before = await yaml();
    const commits = await git(dir, 'rev-list', '--count', 'HEAD');
    const keys = [
      'privateKey',
      'bearer',
      'pass',
      'pwd',
      'auth',
      'cred',
      'sessionCookie',
      'openaiapikey',
      'DB_PASSWORD',
    ];
    for (const key of keys) {
      const error = await rejection(handlers.set(ctx, { key, value: 'hunter2' }));
      expect({ key, code: error.code }).toEqual({ key, code: 'E_TOOL_INVALID_ARGS' });
      expect(error.message).toContain('kept in git');
    }
    const leaked = await rejection(
      handlers.set(ctx, { key: 'model', value: 'sk-proj-Abcdefghij0123456789klmnopqrstuv' }),
    );
    expect(leaked.code).toBe('E_TOOL_INVALID_ARGS');
    expect(leaked.message).not.toContain('sk-proj');
    expect(await yaml()).toBe(before);
    expect(await git(dir, 'rev-list', '--count', 'HEAD')).toBe(commits);
    // Reading a secret key is refused the same way; names that only describe a secret are ordinary settings.
    expect((await rejection(handlers.get(ctx, { key: 'pwd' }))).code).toBe('E_TOOL_INVALID_ARGS');
    for (const key of ['tokenizer', 'authUrl', 'githubTokenEnv'])
      expect(await handlers.set(ctx, { key, value: 'x' })).toMatchObject({ status: 'ok' });
  });

  test('the refusal says what to do: the real page of secret values, no valueFrom for the setting itself', async () => {
    const { ctx } = await bundle();
    const { suggestion } = await rejection(handlers.set(ctx, { key: 'privateKey', value: 'x' }));
    expect(suggestion).toContain('docs/resources.md#valuesource');
    expect(suggestion).not.toContain('docs/secrets.md');
    expect(suggestion).not.toMatch(/settings__set \{[^}]*valueFrom/);
    expect(suggestion).toContain('export PRIVATE_KEY=...');
    expect(suggestion).toContain('settings__set { key: "privateKeyEnv", value: "PRIVATE_KEY" }');
    expect(existsSync(join(assistantBundleDir, '..', '..', 'docs', 'resources.md'))).toBe(true);
    expect(readFileSync(join(assistantBundleDir, '..', '..', 'docs', 'resources.md'), 'utf8')).toContain(
      '## ValueSource',
    );
  });

  test('an MCP server with a secret in clear is refused; the valueFrom form is written as a reference', async () => {
    const { dir, ctx, yaml } = await bundle();
    const before = await yaml();
    const commits = await git(dir, 'rev-list', '--count', 'HEAD');
    const byName = await rejection(
      handlers.mcp_add_server(ctx, {
        name: 'github',
        command: 'npx',
        environment: { GITHUB_TOKEN: 'ghp_realsecret123' },
      }),
    );
    expect(byName).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(byName.message).not.toContain('ghp_realsecret123');
    expect(byName.suggestion).toContain('environment: { "GITHUB_TOKEN": { "valueFrom": { "env": "GITHUB_TOKEN" } } }');
    expect(byName.suggestion).toContain('docs/mcp.md#server-fields');
    const byValue = await rejection(
      handlers.mcp_add_server(ctx, {
        name: 'db',
        command: 'db-mcp',
        environment: { DSN_URL: 'postgres://me:hunter22@db/x' },
      }),
    );
    expect(byValue.code).toBe('E_TOOL_INVALID_ARGS');
    const inArguments = await rejection(
      handlers.mcp_add_server(ctx, {
        name: 'ai',
        command: 'ai-mcp',
        arguments: ['--key', 'sk-Abcdefghij0123456789klmnop'],
      }),
    );
    expect(inArguments.code).toBe('E_TOOL_INVALID_ARGS');
    expect(await yaml()).toBe(before);
    expect(await git(dir, 'rev-list', '--count', 'HEAD')).toBe(commits);

    const reference = { valueFrom: { env: 'GITHUB_TOKEN' } };
    expect(
      await handlers.mcp_add_server(ctx, {
        name: 'github',
        command: 'npx',
        environment: { GITHUB_TOKEN: reference, ORG: 'acme' },
      }),
    ).toMatchObject({ status: 'ok' });
    const written = await yaml();
    expect(written).not.toContain('ghp_');
    const agent = parseAllDocuments(written)[0]?.toJS() as { spec: { extensions: { config: { servers: Out[] } }[] } };
    const server = agent.spec.extensions[0]?.config.servers[0];
    expect(server?.env).toEqual({ GITHUB_TOKEN: reference, ORG: 'acme' });
    await expect(
      handlers.mcp_update_server(ctx, { id: 'github', environment: { GITHUB_TOKEN: 'ghp_realsecret123' } }),
    ).rejects.toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
  });

  test('the parameters schema takes an environment value as text or { valueFrom: { env } }, not { value }', async () => {
    const documents = parseAllDocuments(readFileSync(join(assistantBundleDir, 'goondan.yaml'), 'utf8')).map(
      (document) => document.toJS() as { metadata: { name: string }; spec: { exports: ToolExportSpec[] } },
    );
    const tool = documents.find((document) => document.metadata?.name === 'settings');
    const registry = new ToolRegistry();
    for (const entry of tool?.spec.exports ?? [])
      registry.register(
        {
          name: buildToolName('settings', entry.name),
          description: entry.description,
          parameters: entry.parameters,
          source: { type: 'config', name: 'settings' },
        },
        async () => 'ran',
      );
    const executor = new ToolExecutor({ registry });
    const catalog = new ToolCatalog(registry.list().map((registered) => registered.item));
    const call = (name: string, args: JsonObject) =>
      executor.execute(
        { id: 'call_1', name, args },
        {
          catalog,
          scope: {
            agentName: 'helper',
            instanceKey: 'default',
            turnId: 'turn_1',
            message: {
              id: 'm',
              data: { role: 'assistant' as const, content: [] },
              metadata: {},
              createdAt: new Date(0),
              source: { type: 'assistant' as const },
            },
            workdir: assistantBundleDir,
            logger: console,
          },
        },
      );
    for (const tool of ['settings__mcp_add_server', 'settings__mcp_update_server']) {
      const base: JsonObject = tool.endsWith('add_server') ? { name: 'gh', command: 'npx' } : { id: 'gh' };
      const env = (value: JsonObject[string]) => call(tool, { ...base, environment: { GITHUB_TOKEN: value } });
      expect((await env({ valueFrom: { env: 'GITHUB_TOKEN' } })).status).toBe('ok');
      expect((await env('plain')).status).toBe('ok');
      const refused: JsonObject[] = [{ value: 'inline' }, { valueFrom: { env: 'not a name' } }, { valueFrom: {} }];
      for (const bad of refused) expect((await env(bad)).error?.code).toBe('E_TOOL_INVALID_ARGS');
    }
  });
});
