import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, gdn, gdnJson, makeTempDir } from './helpers.ts';

interface ToolResultJson {
  status: 'ok' | 'error' | 'pending';
  output?: Record<string, unknown>;
  handle?: string;
  error?: { code: string; name: string; message: string; suggestion: string; helpUrl: string };
}

interface CatalogItem {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  source?: { type: string; name: string };
  permission?: { category: string; decision: string; rule: string } | null;
}

const catalogNames = [
  'calc__add',
  'calc__boom',
  'calc__later',
  'slow__wait',
  'file-system__read',
  'file-system__write',
  'file-system__list',
  'file-system__replace',
  'file-system__delete',
  'bash__exec',
  'bash__script',
];

let bundle: string;

beforeAll(async () => {
  bundle = await agentBundle();
});
afterAll(cleanupTempDirs);

function call(name: string, args: string, ...flags: string[]) {
  return gdnJson<ToolResultJson>(['tools', 'call', name, args, '--bundle', bundle, ...flags]);
}

describe('gdn tools list', () => {
  test('--json gives the agent catalog: resource__export names in spec.tools order, schemas as declared', async () => {
    const { result, json } = await gdnJson<{ agent: string; tools: CatalogItem[] }>([
      'tools',
      'list',
      '--json',
      '--bundle',
      bundle,
    ]);
    expect(result.exitCode).toBe(0);
    expect(json.agent).toBe('helper');
    expect(json.tools.map((item) => item.name)).toEqual(catalogNames);
    // The registry-only tool and the base tool the agent does not list are not in the catalog.
    expect(json.tools.map((item) => item.name)).not.toContain('secret__peek');
    expect(json.tools.map((item) => item.name)).not.toContain('http-fetch__get');
    expect(json.tools[0]).toEqual({
      name: 'calc__add',
      description: 'Adds two integers and returns their sum.',
      parameters: {
        type: 'object',
        properties: {
          a: { type: 'integer', description: 'First addend' },
          b: { type: 'integer', description: 'Second addend', minimum: -1000 },
        },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      source: { type: 'config', name: 'calc' },
      permission: { category: 'sensitive', decision: 'allow', rule: 'default sensitive: allow' },
    });
    const bash = json.tools.find((item) => item.name === 'bash__exec')!;
    expect(bash.source).toEqual({ type: 'config', name: 'bash' });
    expect(bash.permission).toEqual({ category: 'restricted', decision: 'ask', rule: 'default restricted: ask' });
    const read = json.tools.find((item) => item.name === 'file-system__read')!;
    expect(read.permission).toMatchObject({ category: 'safe', decision: 'allow' });
  });

  test('text form shows each tool with its source and parameters', async () => {
    const result = await gdn(['tools', 'list', '--bundle', bundle]);
    expect(result.exitCode).toBe(0);
    const out = result.stdout;
    expect(out).toStartWith('11 tools in the catalog (Agent/helper)');
    expect(out).toContain('calc__add  [config:calc]  sensitive · allow\n  Adds two integers and returns their sum.');
    expect(out).toContain('  - a: integer  First addend\n  - b: integer  Second addend');
    expect(out).toContain('  - reason?: string');
    expect(out).toContain('bash__exec  [config:bash]  restricted · ask');
    for (const name of catalogNames) expect(out).toContain(`\n${name}  [`);
  });

  test('--agent naming no agent of the bundle fails with E_REF_UNRESOLVED', async () => {
    const result = await gdn(['tools', 'list', '--agent', 'nobody', '--bundle', bundle]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('E_REF_UNRESOLVED');
    expect(result.stderr).toContain("No Agent named 'nobody'");
  });
});

describe('gdn tools call', () => {
  test('a valid call exits 0 and prints the ToolResult as JSON', async () => {
    const { result, json } = await call('calc__add', '{"a":2,"b":40}');
    expect(result.exitCode).toBe(0);
    expect(json).toEqual({ status: 'ok', output: { sum: 42 } });
  });

  test('a tool outside the catalog is E_TOOL_NOT_IN_CATALOG, exit 1, even though it is registered', async () => {
    const { result, json } = await call('secret__peek', '{}');
    expect(result.exitCode).toBe(1);
    expect(json.status).toBe('error');
    expect(json.error!.code).toBe('E_TOOL_NOT_IN_CATALOG');
    expect(json.error!.message).toContain("'secret__peek'");
    expect(json.error!.helpUrl).toBe('docs/errors/E_TOOL_NOT_IN_CATALOG.md');
    expect(json.output).toBeUndefined();
  });

  test("a tool of the agent's catalog its permissions deny is E_POLICY_DENIED naming the rule, not missing", async () => {
    const denying = await agentBundle();
    const file = join(denying, 'goondan.yaml');
    const yaml = await readFile(file, 'utf8');
    await Bun.write(
      file,
      yaml.replace('    - Tool/bash\n', '    - Tool/bash\n  permissions:\n    tools:\n      "bash__*": deny\n'),
    );
    const { result, json } = await gdnJson<ToolResultJson>([
      'tools',
      'call',
      'bash__exec',
      '{"command":"echo hi"}',
      '--bundle',
      denying,
    ]);
    expect(result.exitCode).toBe(1);
    expect(json.error!.code).toBe('E_POLICY_DENIED');
    expect(json.error!.message).toContain('tools."bash__*": deny');
    // The catalog the model would see leaves it out.
    const listed = await gdnJson<{ tools: CatalogItem[] }>(['tools', 'list', '--json', '--bundle', denying]);
    expect(listed.json.tools.map((item) => item.name)).not.toContain('bash__exec');
  });

  test('arguments that break the schema, or are not JSON, are E_TOOL_INVALID_ARGS', async () => {
    const wrongType = await call('calc__add', '{"a":"two","b":1}');
    expect(wrongType.result.exitCode).toBe(1);
    expect(wrongType.json.error!.code).toBe('E_TOOL_INVALID_ARGS');
    expect(wrongType.json.error!.message).toContain('a: must be integer');

    const missing = await call('calc__add', '{"a":1}');
    expect(missing.json.error!.code).toBe('E_TOOL_INVALID_ARGS');
    expect(missing.json.error!.message).toContain('b: is required');

    const extra = await call('calc__add', '{"a":1,"b":2,"c":3}');
    expect(extra.json.error!.code).toBe('E_TOOL_INVALID_ARGS');

    const broken = await call('calc__add', '{"a":1,');
    expect(broken.result.exitCode).toBe(1);
    expect(broken.json.error!.code).toBe('E_TOOL_INVALID_ARGS');
    expect(broken.json.error!.message).toContain('not valid JSON');
  });

  test('a handler that throws is E_TOOL with its message, exit 1', async () => {
    const { result, json } = await call('calc__boom', '{"reason":"disk on fire"}');
    expect(result.exitCode).toBe(1);
    expect(json.status).toBe('error');
    expect(json.error!.code).toBe('E_TOOL');
    expect(json.error!.message).toBe('kaboom: disk on fire');
    expect(json.error!.suggestion.length).toBeGreaterThan(0);
  });

  test("'-' reads the arguments from standard input: past the command line's limit, and up to 16 MiB", async () => {
    const added = await gdnJson<ToolResultJson>(['tools', 'call', 'calc__add', '-', '--bundle', bundle], {
      stdin: '{"a":2,"b":40}\n',
    });
    expect(added.result.exitCode).toBe(0);
    expect(added.json).toEqual({ status: 'ok', output: { sum: 42 } });

    // One command-line argument holds at most 128 KiB on Linux; standard input has no such limit.
    const workdir = await makeTempDir('gdn-stdin-args-');
    const content = 'line of a long file\n'.repeat(20_000);
    const flags = ['--bundle', bundle, '--workdir', workdir];
    const written = await gdnJson<ToolResultJson>(['tools', 'call', 'file-system__write', '-', ...flags], {
      stdin: JSON.stringify({ path: 'long.txt', content }),
    });
    expect(written.result.exitCode).toBe(0);
    expect(await readFile(join(workdir, 'long.txt'), 'utf8')).toBe(content);

    // More than 16 MiB is a usage error before anything runs: the file is not written.
    const huge = JSON.stringify({ path: 'huge.txt', content: 'z'.repeat(17 * 1024 * 1024) });
    const refused = await gdn(['tools', 'call', 'file-system__write', '-', ...flags], { stdin: huge });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('the JSON arguments read from standard input went past 16 MiB');
    expect(refused.stderr).toContain('E_CLI_USAGE');
    expect(existsSync(join(workdir, 'huge.txt'))).toBe(false);

    // Broken JSON from standard input is the call's E_TOOL_INVALID_ARGS, as on the command line.
    const broken = await gdnJson<ToolResultJson>(['tools', 'call', 'calc__add', '-', '--bundle', bundle], {
      stdin: '{"a":2,',
    });
    expect(broken.result.exitCode).toBe(1);
    expect(broken.json.error?.code).toBe('E_TOOL_INVALID_ARGS');
  });

  test('--workdir is where file-system tools write and read', async () => {
    const workdir = await makeTempDir('gdn-workdir-');
    const written = await call(
      'file-system__write',
      JSON.stringify({ path: 'notes/today.txt', content: 'buy milk\n' }),
      '--workdir',
      workdir,
    );
    expect(written.result.exitCode).toBe(0);
    expect(written.json.status).toBe('ok');
    expect(await readFile(join(workdir, 'notes', 'today.txt'), 'utf8')).toBe('buy milk\n');
    // Nothing went to the default workdir.
    expect(existsSync(join(bundle, '.goondan', 'workspaces', 'helper', 'default', 'notes'))).toBe(false);

    const read = await call('file-system__read', '{"path":"notes/today.txt"}', '--workdir', workdir);
    expect(read.result.exitCode).toBe(0);
    expect(read.json.output).toMatchObject({ content: 'buy milk\n', truncated: false });

    const outside = await call('file-system__read', '{"path":"../../etc/passwd"}', '--workdir', workdir);
    expect(outside.result.exitCode).toBe(1);
    expect(outside.json.error!.code).toBe('E_PATH_OUTSIDE_WORKDIR');
  });

  test('bash__exec (restricted: ask) is refused without --yes, and with it runs in --workdir or the instance workspace', async () => {
    const workdir = await makeTempDir('gdn-bash-');
    const refused = await call('bash__exec', '{"command":"touch made-it"}', '--workdir', workdir);
    expect(refused.result.exitCode).toBe(1);
    expect(refused.json.error?.code).toBe('E_APPROVAL_DENIED');
    expect(refused.json.error?.message).toContain('--yes');
    // Nobody was asked: neither the message nor the suggestion says a person refused it.
    expect(refused.json.error?.message).toContain('no terminal to ask');
    expect(refused.json.error?.suggestion).toContain('nobody could be asked');
    expect(existsSync(join(workdir, 'made-it'))).toBe(false);

    const args = ['--workdir', workdir, '--yes'];
    const { result, json } = await call('bash__exec', '{"command":"pwd -P && echo hi >&2"}', ...args);
    expect(result.exitCode).toBe(0);
    expect(json.status).toBe('ok');
    expect(json.output).toMatchObject({ exitCode: 0, stdout: `${workdir}\n`, stderr: 'hi\n' });

    const byDefault = await call('bash__exec', '{"command":"pwd -P"}', '--instance', 'k1', '--yes');
    expect(byDefault.json.output!.stdout).toBe(`${join(bundle, '.goondan', 'workspaces', 'helper', 'k1')}\n`);
  });

  test('a tool that submits a job prints pending without --wait and the final result with --wait', async () => {
    const pending = await call('calc__later', '{"value":"v1"}');
    expect(pending.result.exitCode).toBe(0);
    expect(pending.json.status).toBe('pending');
    expect(pending.json.handle).toMatch(/^job_/);
    expect(pending.json.output).toBeUndefined();

    const waited = await call('calc__later', '{"value":"v2"}', '--wait');
    expect(waited.result.exitCode).toBe(0);
    expect(waited.json.status).toBe('ok');
    expect(waited.json.handle).toMatch(/^job_/);
    expect(waited.json.output).toEqual({ echoed: 'v2', finished: true });
  });

  test('usage mistakes exit 2', async () => {
    const noName = await gdn(['tools', 'call', '--bundle', bundle]);
    expect(noName.exitCode).toBe(2);
    expect(noName.stderr).toContain('missing the tool name');

    const unquoted = await gdn(['tools', 'call', 'calc__add', '{"a":1,', '"b":2}', '--bundle', bundle]);
    expect(unquoted.exitCode).toBe(2);
    expect(unquoted.stderr).toContain('quote the JSON arguments');

    const sub = await gdn(['tools', 'frobnicate', '--bundle', bundle]);
    expect(sub.exitCode).toBe(2);
    expect(sub.stderr).toContain("unknown subcommand 'tools frobnicate'");
  });
});
