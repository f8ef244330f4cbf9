import type { Bundle, ToolHandler } from '@goondan/core';
import { type ProtocolOutput, reserveStdout } from '../reserve-stdout.ts';
import { stderrLogger } from '../stderr-logger.ts';
import { createMcpServer } from './create-mcp-server.ts';
import { openServed, type Served } from './open-served.ts';
import { ProtocolStdioTransport } from './protocol-stdio-transport.ts';
import { serveHttp } from './serve-http.ts';

/** `gdn mcp serve` once its flags are read and its bundle loaded: serves over stdio, or HTTP when `port` is set. */
export async function serveMcp(options: {
  bundle: Bundle;
  handlers: Map<string, Record<string, ToolHandler>>;
  agentName: string | undefined;
  instanceKey: string;
  port: number | undefined;
  allowedOrigins: string[];
}): Promise<number> {
  const { port, allowedOrigins } = options;
  // Over stdio, before the instance opens (extensions load, tools start): from here on only the protocol reaches
  // stdout. (A tool module's top level ran with the bundle's import, before this.)
  if (port === undefined) reserveStdout();
  // The tools' ctx.logger: every level on stderr (stdout may be the MCP channel), redacted like every command's.
  const logger = stderrLogger;
  const served = await openServed({
    bundle: options.bundle,
    handlers: options.handlers,
    agentName: options.agentName,
    instanceKey: options.instanceKey,
    logger,
  });
  const size = (await served.catalog()).size;
  const what = `${size} tool${size === 1 ? '' : 's'} of ${served.label}`;
  try {
    return port === undefined
      ? await serveStdio({ served, what, logger, output: reserveStdout() })
      : await serveHttp({ served, port, what, allowedOrigins, logger });
  } finally {
    await served.close(); // stops jobs, closes extensions (and the MCP servers they started)
    exitSoon();
  }
}

/** Serves until the client closes stdin or the process gets SIGINT/SIGTERM. */
async function serveStdio(options: {
  served: Served;
  what: string;
  logger: Console;
  output: ProtocolOutput;
}): Promise<number> {
  const { served, what, logger, output } = options;
  const server = createMcpServer(served, logger);
  const stopped = Promise.withResolvers<void>();
  process.stdin.once('end', () => stopped.resolve());
  process.once('SIGINT', () => stopped.resolve());
  process.once('SIGTERM', () => stopped.resolve());
  server.onclose = () => stopped.resolve();
  await server.connect(new ProtocolStdioTransport({ input: process.stdin, output, logger }));
  console.error(`gdn mcp serve: serving ${what} over stdio`);
  await stopped.promise;
  await server.close().catch(() => {});
  return 0;
}

/** Lets gdn exit once it has answered, even if a tool left a handle open (a server has nothing left to do). */
function exitSoon(): void {
  setTimeout(() => process.exit(), 200).unref();
}
