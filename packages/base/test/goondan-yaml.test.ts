import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { JsonObject, ToolExportSpec, ToolHandler, ToolResourceSpec } from '@goondan/core';
import { buildToolName, ToolCatalog, ToolExecutor, ToolRegistry } from '@goondan/core';
import { baseBundleDir } from '../src/index.ts';
import { cleanup, makeTempDir } from './helpers.ts';

interface ToolDocument {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: ToolResourceSpec;
}

const allDocuments = Bun.YAML.parse(await Bun.file(join(baseBundleDir, 'goondan.yaml')).text()) as ToolDocument[];
const documents = allDocuments.filter((document) => document.kind === 'Tool');
const extensions = allDocuments.filter((document) => document.kind === 'Extension');
const namePattern = /^[a-z0-9_-]+$/;

async function handlersOf(document: ToolDocument): Promise<Record<string, ToolHandler>> {
  const module = (await import(resolve(baseBundleDir, document.spec.entry))) as {
    handlers: Record<string, ToolHandler>;
  };
  return module.handlers;
}

describe('packages/base/goondan.yaml', () => {
  test('baseBundleDir is the package directory', () => {
    expect(existsSync(join(baseBundleDir, 'goondan.yaml'))).toBe(true);
    expect(existsSync(join(baseBundleDir, 'package.json'))).toBe(true);
  });

  test('declares the bash, file-system, http-fetch, agents, jobs and swarm-bundle Tools', () => {
    expect(documents.map((document) => document.metadata.name)).toEqual([
      'bash',
      'file-system',
      'http-fetch',
      'agents',
      'jobs',
      'swarm-bundle',
    ]);
  });

  test('declares the built-in Extensions, each with an entry exporting register(api)', async () => {
    expect(extensions.map((document) => document.metadata.name).sort()).toEqual(
      ['logging', 'mcp', 'message-window', 'oauth-guidance', 'telegram', 'tool-exposure', 'tool-search'].sort(),
    );
    for (const document of extensions) {
      expect(document.metadata.name).toMatch(namePattern);
      const module = (await import(resolve(baseBundleDir, document.spec.entry))) as { register?: unknown };
      expect(`${document.metadata.name}: ${typeof module.register}`).toBe(`${document.metadata.name}: function`);
    }
  });

  test.each(documents.map((document) => [document.metadata.name, document] as const))(
    '%s follows the resource rules and its module exports exactly its handlers',
    async (_name, document) => {
      expect(document.apiVersion).toBe('goondan.ai/v1');
      expect(document.kind).toBe('Tool');
      expect(document.metadata.labels).toEqual({ tier: 'base' });
      expect(document.metadata.name).toMatch(namePattern);
      expect(document.metadata.name).not.toContain('__');
      expect(existsSync(resolve(baseBundleDir, document.spec.entry))).toBe(true);
      const handlers = await handlersOf(document);
      const exportNames = document.spec.exports.map((entry) => entry.name);
      expect(Object.keys(handlers).sort()).toEqual([...exportNames].sort());
      for (const entry of document.spec.exports) {
        expect(entry.name).toMatch(namePattern);
        expect(entry.name).not.toContain('__');
        expect(entry.description?.length ?? 0).toBeGreaterThan(20);
        const parameters = entry.parameters!;
        expect(parameters.type).toBe('object');
        expect(parameters.additionalProperties).toBe(false);
        for (const [property, schema] of Object.entries(parameters.properties ?? {})) {
          expect(`${entry.name}.${property}: ${typeof schema.description}`).toBe(`${entry.name}.${property}: string`);
        }
      }
    },
  );
});

describe('the base Tools through the core executor', () => {
  let workdir: string;
  let executor: ToolExecutor;
  let catalog: ToolCatalog;

  beforeAll(async () => {
    workdir = await makeTempDir();
    await writeFile(join(workdir, 'hello.txt'), 'hello from the workdir');
    const registry = new ToolRegistry();
    for (const document of documents) {
      const handlers = await handlersOf(document);
      for (const entry of document.spec.exports as ToolExportSpec[]) {
        registry.register(
          {
            name: buildToolName(document.metadata.name, entry.name),
            description: entry.description,
            parameters: entry.parameters,
            source: { type: 'config', name: document.metadata.name },
          },
          handlers[entry.name]!,
          {
            errorMessageLimit: document.spec.errorMessageLimit,
            timeoutMs: document.spec.timeoutMs,
            outputLimit: document.spec.outputLimit,
            config: document.spec.config as JsonObject | undefined,
          },
        );
      }
    }
    executor = new ToolExecutor({ registry });
    catalog = new ToolCatalog(registry.list().map((tool) => tool.item));
  });
  afterAll(() => cleanup(workdir));

  const scope = () => ({
    agentName: 'agent',
    instanceKey: 'default',
    turnId: 'turn_1',
    message: {
      id: 'm',
      data: { role: 'assistant' as const, content: [] },
      metadata: {},
      createdAt: new Date(0),
      source: { type: 'assistant' as const },
    },
    workdir,
    logger: console,
  });
  const call = (name: string, args: JsonObject) =>
    executor.execute({ id: 'call_1', name, args }, { catalog, scope: scope() });

  test('every parameters schema compiles and rejects unknown properties', async () => {
    for (const name of catalog.names()) {
      const result = await call(name, { definitelyNotAParameter: true });
      expect(`${name}: ${result.error?.code}`).toBe(`${name}: E_TOOL_INVALID_ARGS`);
    }
  });

  test('bash__exec runs in the workdir', async () => {
    const result = await call('bash__exec', { command: 'cat hello.txt' });
    expect(result).toMatchObject({ status: 'ok', output: { exitCode: 0, stdout: 'hello from the workdir' } });
  });

  test('file-system errors come back as data with the code, suggestion and help link', async () => {
    const result = await call('file-system__read', { path: '../../etc/passwd' });
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ code: 'E_PATH_OUTSIDE_WORKDIR', name: 'PathOutsideWorkdirError' });
    expect(result.error?.helpUrl).toContain('E_PATH_OUTSIDE_WORKDIR');
  });

  test('http-fetch refuses private addresses by default (spec.config.allowPrivateNetwork is false)', async () => {
    const result = await call('http-fetch__get', { url: 'http://169.254.169.254/latest/meta-data/' });
    expect(result.error?.code).toBe('E_HTTP_ADDRESS_BLOCKED');
  });
});
