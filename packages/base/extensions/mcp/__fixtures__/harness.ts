import { afterEach } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ExtensionApi,
  type JsonObject,
  type Message,
  ToolCatalog,
  ToolExecutor,
  ToolRegistry,
  type ToolResult,
} from '@goondan/core';
import { McpBridge } from '../mcp-bridge.ts';
import { parseMcpConfig } from '../parse-config.ts';

export const fixtureServer = join(import.meta.dir, 'fixture-server.ts');

/** A stdio server entry for the fixture, run by the current Bun. */
export function stdioServer(name: string, extra: JsonObject = {}): JsonObject {
  return { name, command: process.execPath, args: [fixtureServer], ...extra };
}

export interface LogLine {
  level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  text: string;
}

const message: Message = {
  id: 'msg_mcp_test',
  data: { role: 'assistant', content: [] },
  metadata: {},
  createdAt: new Date(0),
  source: { type: 'assistant' },
};

/**
 * The mcp extension over a hand-built ExtensionApi (the same register/unregister rules as the loader) with a real
 * registry and executor, so calls run the whole pipeline: guard, validation, handler, timeout, result.
 */
export async function startBridge(config: JsonObject, options: { retryDelayMs?: number } = {}) {
  const registry = new ToolRegistry();
  const logs: LogLine[] = [];
  const record =
    (level: LogLine['level']) =>
    (...values: unknown[]) =>
      logs.push({ level, text: values.map(String).join(' ') });
  const logger = {
    log: record('log'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    debug: record('debug'),
  } as unknown as Console;
  const api: Pick<ExtensionApi, 'extensionName' | 'tools' | 'logger'> = {
    extensionName: 'mcp',
    logger,
    tools: {
      register(item, handler, registerOptions) {
        const source = item.source?.type === 'mcp' ? item.source : { type: 'extension' as const, name: 'mcp' };
        registry.register({ ...item, source }, handler, registerOptions);
      },
      unregister: (name) => registry.unregister(name),
      list: () => registry.list().map((tool) => tool.item),
    },
  };
  const bridge = new McpBridge({ api, servers: parseMcpConfig(config), retryDelayMs: options.retryDelayMs ?? 50 });
  await bridge.start();
  const executor = new ToolExecutor({ registry });
  let sequence = 0;
  let cached: { version: number; catalog: ToolCatalog } | undefined;
  const catalog = () => {
    if (cached?.version !== registry.version) {
      cached = { version: registry.version, catalog: new ToolCatalog(registry.list().map((tool) => tool.item)) };
    }
    return cached.catalog;
  };
  return {
    bridge,
    registry,
    executor,
    logs,
    /** Calls a registered tool through the executor, with the registry as the catalog. */
    call(name: string, args: JsonObject = {}, signal?: AbortSignal): Promise<ToolResult> {
      sequence += 1;
      return executor.execute(
        { id: `call_${sequence}`, name, args },
        {
          catalog: catalog(),
          scope: {
            agentName: 'test',
            instanceKey: 'x',
            turnId: 'turn_test',
            message,
            workdir: import.meta.dir,
            logger,
            signal,
          },
        },
      );
    },
    close: () => bridge.close(),
  };
}

export type Bridge = Awaited<ReturnType<typeof startBridge>>;

/**
 * True while a process with this pid runs. A zombie (dead, not yet reaped: an orphan waits for the init process,
 * which in some containers reaps late) counts as ended.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(0) is all there is
  }
}

/** Polls `check` until it is true or `timeoutMs` passes. */
export async function waitFor(check: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** startBridge for one test file: every bridge it started is closed after each test. Call it once, at the top. */
export function bridgesClosedAfterEach(): typeof startBridge {
  const opened: Bridge[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((item) => item.close()));
  });
  return async (...args) => {
    const started = await startBridge(...args);
    opened.push(started);
    return started;
  };
}
