import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../config/load-bundle.ts';
import type { AgentResource } from '../config/resources.ts';
import type { ToolHandler } from '../types.ts';
import { createAgentToolset } from './agent-toolset.ts';
import { testScope } from './test-support.ts';
import { checkAvailability, clearAvailabilityCache, findCommand } from './tool-availability.ts';

let dir: string;
let binDir: string;
const context = (
  extra: { platform?: string; env?: Record<string, string>; config?: Record<string, unknown> } = {},
) => ({
  platform: extra.platform ?? 'linux',
  env: { PATH: binDir, ...extra.env },
  config: extra.config ?? {},
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gdn-availability-'));
  binDir = join(dir, 'bin');
  rmSync(binDir, { recursive: true, force: true });
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'fake-player'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(binDir, 'fake-player'), 0o755);
  writeFileSync(join(binDir, 'not-executable'), 'text');
  writeFileSync(join(dir, 'bus'), '');
  clearAvailabilityCache();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkAvailability: a Tool is offered only when its spec.requires holds here', () => {
  test('commands are found on PATH when executable; a|b accepts either', () => {
    expect(findCommand('fake-player', binDir)).toBe(join(binDir, 'fake-player'));
    expect(findCommand('not-executable', binDir)).toBeNull();
    expect(checkAvailability([{ commands: ['xsel-missing|fake-player'] }], context())).toEqual({ available: true });
    expect(
      checkAvailability([{ commands: ['playerctl-missing'], install: 'apt-get install playerctl' }], context()),
    ).toEqual({
      available: false,
      reason: 'needs the command playerctl-missing on PATH (not found)',
      install: 'apt-get install playerctl',
    });
  });

  test('platforms, environment variables (set and non-empty), config keys', () => {
    expect(checkAvailability([{ platforms: ['darwin'] }], context())).toEqual({
      available: false,
      reason: 'not available on linux (only darwin)',
    });
    const display = [{ env: ['DISPLAY|WAYLAND_DISPLAY'] }];
    expect(checkAvailability(display, context({ env: { WAYLAND_DISPLAY: 'wayland-0' } })).available).toBe(true);
    expect(checkAvailability(display, context({ env: { DISPLAY: '' } }))).toEqual({
      available: false,
      reason: 'needs the environment variable DISPLAY or WAYLAND_DISPLAY (not set)',
    });
    expect(checkAvailability([{ config: ['command'] }], context({ config: { command: 'fake' } })).available).toBe(true);
    expect(checkAvailability([{ config: ['command'] }], context({ config: { command: '' } }))).toEqual({
      available: false,
      reason: 'needs spec.config.command (not set)',
    });
  });

  test('dbus: the session bus address must name a socket that exists, else $XDG_RUNTIME_DIR/bus', () => {
    const session = [{ dbus: 'session' as const }];
    const at = (address: string) => context({ env: { DBUS_SESSION_BUS_ADDRESS: address } });
    expect(checkAvailability(session, at(`unix:path=${join(dir, 'bus')},guid=abc`)).available).toBe(true);
    expect(checkAvailability(session, at(`unix:path=${join(dir, 'gone')}`)).available).toBe(false);
    expect(checkAvailability(session, at('unix:abstract=/tmp/dbus-x')).available).toBe(true);
    expect(checkAvailability(session, context({ env: { XDG_RUNTIME_DIR: dir } })).available).toBe(true);
    expect(checkAvailability(session, context())).toMatchObject({
      available: false,
      reason: expect.stringMatching(/D-Bus session/),
    });
  });

  test("anyOf: one set must hold; the reason is the set written for this platform's", () => {
    const music = {
      anyOf: [
        { platforms: ['linux'], commands: ['playerctl-missing'], install: 'apt-get install playerctl' },
        { platforms: ['darwin'], commands: ['osascript'] },
      ],
    };
    expect(checkAvailability([music], context())).toEqual({
      available: false,
      reason: 'needs the command playerctl-missing on PATH (not found)',
      install: 'apt-get install playerctl',
    });
    expect(checkAvailability([music], context({ platform: 'win32' }))).toEqual({
      available: false,
      reason: 'not available on win32 (only linux, darwin)',
    });
    // The Tool's set and the export's set must both hold.
    expect(checkAvailability([{ commands: ['fake-player'] }, { platforms: ['darwin'] }], context()).available).toBe(
      false,
    );
  });
});

describe('spec.requires in a bundle', () => {
  const write = (name: string, yaml: string) => {
    const bundleDir = join(dir, name);
    mkdirSync(bundleDir, { recursive: true });
    writeFileSync(join(bundleDir, 'goondan.yaml'), yaml);
    return bundleDir;
  };

  test('bad values are E_TOOL_REQUIRES_INVALID, bad shapes E_RESOURCE_INVALID, each at its field', async () => {
    const bundleDir = write(
      'bad',
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: music }
spec:
  entry: ./music.ts
  requires:
    platforms: [macos]
    commands: [/usr/bin/playerctl, "a||b"]
    env: [DISPLAY|9BAD]
    command: [x]
  exports:
    - name: next
      requires: { dbus: user, anyOf: [{ platforms: [linux], config: ["bad key"] }] }
`,
    );
    const { problems } = await loadBundle({ dir: bundleDir, checkEntries: false });
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['E_TOOL_REQUIRES_INVALID', 'spec.requires.platforms[0]'],
      ['E_TOOL_REQUIRES_INVALID', 'spec.requires.commands[0]'],
      ['E_TOOL_REQUIRES_INVALID', 'spec.requires.commands[1]'],
      ['E_TOOL_REQUIRES_INVALID', 'spec.requires.env[0]'],
      ['E_RESOURCE_INVALID', 'spec.requires.command'],
      ['E_RESOURCE_INVALID', 'spec.exports[0].requires.dbus'],
      ['E_TOOL_REQUIRES_INVALID', 'spec.exports[0].requires.anyOf[0].config[0]'],
    ]);
    expect(problems[0]?.suggestion).toBe('Did you mean "darwin"?');
    expect(problems[4]?.suggestion).toContain('Did you mean "commands"?');
  });

  test('an unmet need keeps the tool out of the registry and the catalog; a call says why', async () => {
    const bundleDir = write(
      'good',
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: music }
spec:
  entry: ./music.ts
  requires: { commands: [gdn-test-no-such-player], install: apt-get install playerctl }
  exports: [{ name: next }]
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: coding }
spec:
  entry: ./coding.ts
  exports:
    - { name: review }
    - { name: run_task, requires: { config: [command] } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  tools: [Tool/music, Tool/coding]
`,
    );
    const { bundle, problems } = await loadBundle({ dir: bundleDir, checkEntries: false });
    expect(problems).toEqual([]);
    const agent = bundle!.resources.get('Agent/helper') as AgentResource;
    const handlers = new Map<string, Record<string, ToolHandler>>([
      ['Tool/music', { next: () => 'skipped' }],
      ['Tool/coding', { review: () => 'ok', run_task: () => 'ran' }],
    ]);
    const toolset = createAgentToolset({ bundle: bundle!, handlers, agent });
    const catalog = toolset.catalogBuilder.build();
    expect(catalog.names()).toEqual(['coding__review']);
    expect(toolset.registry.has('music__next')).toBe(false);
    expect([...toolset.unavailable!.values()]).toEqual([
      {
        name: 'music__next',
        resource: 'music',
        reason: 'needs the command gdn-test-no-such-player on PATH (not found)',
        install: 'apt-get install playerctl',
        declared: true,
      },
      { name: 'coding__run_task', resource: 'coding', reason: 'needs spec.config.command (not set)', declared: true },
    ]);
    const result = await toolset.executor.execute(
      { id: 'c1', name: 'music__next', args: {} },
      { catalog, scope: testScope() },
    );
    expect(result.error).toMatchObject({
      code: 'E_TOOL_UNAVAILABLE',
      message:
        "Tool 'music__next' is not offered on this machine: it needs the command gdn-test-no-such-player on PATH (not found). To install: apt-get install playerctl.",
    });
    const unknown = await toolset.executor.execute(
      { id: 'c2', name: 'music__prev', args: {} },
      { catalog, scope: testScope() },
    );
    expect(unknown.error?.code).toBe('E_TOOL_NOT_IN_CATALOG');

    // The Agent's per-tool config counts: with a command configured, run_task is offered.
    const configured = {
      ...agent,
      spec: { ...agent.spec, tools: ['Tool/music', { ref: 'Tool/coding', config: { command: 'fake-coder' } }] },
    } as AgentResource;
    const withConfig = createAgentToolset({ bundle: bundle!, handlers, agent: configured });
    expect(withConfig.catalogBuilder.build().names()).toEqual(['coding__review', 'coding__run_task']);
  });
});
