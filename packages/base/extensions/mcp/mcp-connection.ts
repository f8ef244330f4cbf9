import { type OAuthCaller, settlesWithin } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  ResultSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { scrubEnvironment } from '../../src/scrub-environment.ts';
import { callToolAsTask } from './call-tool-as-task.ts';
import { checkCallResult } from './check-call-result.ts';
import { describeThrown, isBrokenConnection, isSchemaError, lastLines, stripMcpPrefix } from './describe-failure.ts';
import { failBrokenStreams } from './fail-broken-streams.ts';
import { type CompiledSchemas, listMcpTools, type McpToolList } from './list-mcp-tools.ts';
import { oauthBearerFetch } from './oauth-bearer-fetch.ts';
import type { McpServerConfig } from './parse-config.ts';
import { ProcessGroupTransport } from './process-group-transport.ts';

export type McpTool = Tool;

/** One tools/call: `asTask` for a tool whose `execution.taskSupport` is `required` (see call-tool-as-task.ts). */
export interface McpCall {
  mcpName: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  asTask?: boolean;
}

export interface McpConnectionOptions {
  config: McpServerConfig;
  logger: Console;
  /** Who asks for the OAuth token of a server with `oauthAppRef` (the agent instance of the extension). */
  caller?: OAuthCaller;
  /**
   * Told the server's full tool list after every (re)connect and every `notifications/tools/list_changed`, with
   * the tools left out of it and why.
   */
  onTools: (list: McpToolList) => void;
  /** First delay of the background reconnect; doubles after each failure up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

const CLIENT_INFO = { name: 'goondan', version: '0.1.0' };
const DEFAULT_RETRY_DELAY_MS = 1_000;
const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;
/** How long a server whose pipe broke as it started may take to be seen ending (its exit code and stderr). */
const SERVER_END_WAIT_MS = 2_000;
/** After a re-listing that took d ms, the next waits REFRESH_PAUSE_FACTOR × d (list_changed sent without end). */
const REFRESH_PAUSE_FACTOR = 4;
const MAX_REFRESH_PAUSE_MS = 5_000;

/**
 * One MCP server as the agent sees it: connects (stdio or streamable HTTP), lists tools, calls them, and keeps
 * itself connected. A dropped connection (the transport closed, the server process died, an HTTP call failed) is
 * noticed at once; the next call reconnects (and re-lists) before it is sent, and a background retry with
 * exponential backoff reconnects meanwhile, so tools that appeared while nobody called are picked up too.
 */
export class McpConnection {
  readonly name: string;
  private client: Client | null = null;
  private transport: ProcessGroupTransport | StreamableHTTPClientTransport | null = null;
  private connecting: Promise<Client> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryDelayMs: number;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  /** A client whose server sent tools/list_changed while it was connecting: re-listed once connected. */
  private refreshWhenConnected: Client | null = null;
  private closed = false;
  /** Why the last connect failed or the connection dropped, for E_MCP_UNAVAILABLE messages. */
  private lastProblem = 'not connected yet';
  private failuresInARow = 0;
  /** Of the tools last published: the checks of their structuredContent against their outputSchema. */
  private outputChecks = new Map<string, JsonSchemaValidator<unknown>>();
  /** The schemas of the last listing, compiled: a re-listing compiles only what changed. */
  private readonly compiled: CompiledSchemas = new Map();

  constructor(private readonly options: McpConnectionOptions) {
    this.name = options.config.name;
    this.retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /** Whether the connected server runs tools/call as tasks (its `tasks.requests.tools.call` capability). */
  get supportsToolTasks(): boolean {
    return this.client?.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
  }

  /** The stdio server's process id while it runs (null for HTTP servers). */
  get pid(): number | null {
    return this.transport instanceof ProcessGroupTransport ? this.transport.pid : null;
  }

  /** Connects (or joins a connect in progress); rejects with E_MCP_UNAVAILABLE saying why. */
  connect(): Promise<Client> {
    if (this.closed) return Promise.reject(this.unavailable('the extension was closed'));
    if (this.client) return Promise.resolve(this.client);
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /**
   * Calls one tool; the call is cancelled at the server when `signal` aborts or `timeoutMs` passes. An HTTP server
   * that no longer knows our session (it restarted) refused the call without running it: reconnect (a new session),
   * send it once more.
   */
  async callTool(call: McpCall, isRetry = false): Promise<CallToolResult> {
    const { mcpName, args, signal } = call;
    const client = await this.connect();
    const { timeoutMs } = this.options.config;
    try {
      // Asked with a lenient schema and checked here: a malformed answer is this call's failure, not the connection's.
      const answer = call.asTask
        ? await callToolAsTask({ client, serverName: this.name, mcpName, args, signal, timeoutMs })
        : await client.request({ method: 'tools/call', params: { name: mcpName, arguments: args } }, ResultSchema, {
            signal,
            timeout: timeoutMs,
          });
      return checkCallResult(answer, { serverName: this.name, mcpName, outputCheck: this.outputChecks.get(mcpName) });
    } catch (thrown) {
      if (signal.aborted) throw thrown; // the executor has answered already (timeout or cancellation)
      if (thrown instanceof GoondanError) throw thrown;
      if (isSchemaError(thrown)) {
        // An answer the SDK's schema refused (a task's status, say): the server answered, the connection is fine.
        throw new GoondanError(
          'E_MCP_TOOL_ERROR',
          `MCP server '${this.name}' answered tools/call '${mcpName}' with ${describeThrown(thrown)}`,
        );
      }
      if (!isRetry && this.refusedSession(client, thrown)) {
        const status = (thrown as StreamableHTTPError).code;
        this.drop(client, `the server no longer knows the HTTP session (HTTP ${status}; it restarted?)`);
        return this.callTool(call, true);
      }
      if (thrown instanceof McpError && thrown.code === ErrorCode.RequestTimeout) {
        throw new GoondanError(
          'E_TOOL_TIMEOUT',
          `MCP server '${this.name}' did not answer tools/call '${mcpName}' within ${timeoutMs} ms; the call was cancelled.`,
        );
      }
      if (thrown instanceof McpError && thrown.code !== ErrorCode.ConnectionClosed) {
        throw new GoondanError(
          'E_MCP_TOOL_ERROR',
          `tools/call '${mcpName}' on MCP server '${this.name}' failed: ${stripMcpPrefix(thrown)}`,
        );
      }
      // The connection is broken (closed mid-call, HTTP unreachable, expired session): start afresh next time.
      const reason = this.client === client ? this.describeFailure(thrown) : this.lastProblem;
      this.drop(client, reason);
      throw this.unavailable(`${reason} during tools/call '${mcpName}'`);
    }
  }

  /**
   * The server refused a request of our session with 404 (the spec's "session not found") or 400 (what many servers
   * answer for an id they do not know, or a session that is not initialised). Either is an HTTP answer given before
   * any JSON-RPC handling, so the call did not run: sending it again in a new session cannot run it twice.
   */
  private refusedSession(client: Client, thrown: unknown): boolean {
    if (!(thrown instanceof StreamableHTTPError) || (thrown.code !== 404 && thrown.code !== 400)) return false;
    const transport = this.client === client ? this.transport : null;
    return transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined;
  }

  /** Disconnects for good: stops retries and ends the server process (its whole process group). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    const transport = this.transport; // also the one a connect in progress is using
    this.client = null;
    this.transport = null;
    if (client && transport instanceof StreamableHTTPClientTransport) {
      await settlesWithin(transport.terminateSession(), 1_000);
    }
    await client?.close().catch(() => {});
    await transport?.close().catch(() => {});
    await this.connecting?.catch(() => {});
  }

  private async open(): Promise<Client> {
    const { config, logger } = this.options;
    const transport = this.createTransport();
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh(client));
    client.onclose = () => this.drop(client, this.closeReason(transport));
    client.onerror = (error) => logger.debug(`MCP server '${this.name}': ${error.message}`);
    try {
      this.transport = transport;
      await client.connect(transport, { timeout: config.connectTimeoutMs });
      const tools = await listMcpTools(client, { timeoutMs: config.connectTimeoutMs, compiled: this.compiled });
      if (this.closed) throw new Error('the extension was closed');
      this.client = client;
      if (this.failuresInARow > 0) logger.info(`MCP server '${this.name}' is connected again.`);
      this.failuresInARow = 0;
      this.retryDelayMs = this.options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
      this.publish(tools);
      if (this.refreshWhenConnected === client) void this.refresh(client);
      this.refreshWhenConnected = null;
      return client;
    } catch (thrown) {
      // A server that died as it started: our first write may meet its closed pipe before its exit is seen. Its
      // exit code and stderr say why; EPIPE does not.
      if (transport instanceof ProcessGroupTransport && transport.exit === null && isBrokenConnection(thrown)) {
        await transport.ended(SERVER_END_WAIT_MS);
      }
      const reason = this.describeFailure(thrown, transport);
      if (this.transport === transport) this.transport = null;
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      if (this.closed) throw this.unavailable('the extension was closed');
      this.lastProblem = reason;
      this.failuresInARow += 1;
      if (this.failuresInARow === 1) logger.error(`MCP server '${this.name}' could not be reached: ${reason}`);
      else logger.debug(`MCP server '${this.name}' still unreachable (attempt ${this.failuresInARow}): ${reason}`);
      this.scheduleRetry();
      throw this.unavailable(reason);
    }
  }

  private createTransport(): ProcessGroupTransport | StreamableHTTPClientTransport {
    const { config } = this.options;
    if (config.transport === 'http') {
      const caller = this.options.caller ?? { agentName: 'mcp', instanceKey: 'default' };
      const baseFetch = config.oauthAppRef
        ? oauthBearerFetch({ baseFetch: fetch, server: this.name, oauthAppRef: config.oauthAppRef, caller })
        : fetch;
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
        fetch: failBrokenStreams(baseFetch),
      });
    }
    return new ProcessGroupTransport({
      command: config.command,
      args: config.args,
      env: { ...scrubEnvironment(process.env), ...config.env },
      cwd: config.cwd,
      // Servers chat on stderr (banners, progress); only its tail is kept, for the messages of failures.
    });
  }

  private publish(list: McpToolList): void {
    this.outputChecks = list.outputChecks;
    try {
      this.options.onTools(list);
    } catch (thrown) {
      this.options.logger.error(`MCP server '${this.name}': registering its tools failed: ${describeThrown(thrown)}`);
    }
  }

  /** `notifications/tools/list_changed`: re-list (once more if another notice arrives meanwhile). */
  private refresh(client: Client): Promise<void> {
    if (this.client !== client) {
      // Still connecting: the connect's own listing may predate the change, and a listing now would be dropped
      // (its client is not the connection's yet), so the notice was lost. Re-list once connected.
      this.refreshWhenConnected = client;
      return Promise.resolve();
    }
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      let tookMs = 0;
      do {
        if (tookMs > 0) {
          // Notices that came during a listing: one more, after a pause of REFRESH_PAUSE_FACTOR times what the
          // listing took, so a server that sends list_changed without end has us listing a fifth of the time at most.
          const pauseMs = Math.min(tookMs * REFRESH_PAUSE_FACTOR, MAX_REFRESH_PAUSE_MS);
          await new Promise((resolve) => setTimeout(resolve, pauseMs).unref?.());
          if (this.client !== client) break;
        }
        this.refreshAgain = false;
        const started = performance.now();
        try {
          const tools = await listMcpTools(client, {
            timeoutMs: this.options.config.connectTimeoutMs,
            compiled: this.compiled,
          });
          if (this.client === client) this.publish(tools);
        } catch (thrown) {
          this.options.logger.warn(`MCP server '${this.name}': re-listing tools failed: ${describeThrown(thrown)}`);
        }
        tookMs = Math.max(1, performance.now() - started);
      } while (this.refreshAgain && this.client === client);
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** The connection of `client` is gone: forget it, and reconnect in the background unless closing. */
  private drop(client: Client, reason: string): void {
    if (this.client !== client) return;
    const transport = this.transport;
    this.client = null;
    this.transport = null;
    this.lastProblem = reason;
    if (this.closed) return;
    this.options.logger.warn(`MCP server '${this.name}' disconnected (${reason}); reconnecting.`);
    void client.close().catch(() => {});
    void transport?.close().catch(() => {});
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.retryDelayMs;
    this.retryDelayMs = Math.min(delay * 2, this.options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.closed && !this.client) this.connect().catch(() => {});
    }, delay);
    this.retryTimer.unref?.();
  }

  private closeReason(transport: ProcessGroupTransport | StreamableHTTPClientTransport): string {
    if (transport instanceof ProcessGroupTransport) {
      const stderr = transport.stderr.trim();
      return `the server process ended (${transport.exit ?? 'unknown'})${stderr ? `; its stderr ended with: ${lastLines(stderr)}` : ''}`;
    }
    return 'the connection closed';
  }

  private describeFailure(thrown: unknown, transport = this.transport): string {
    const message = thrown instanceof McpError ? stripMcpPrefix(thrown) : describeThrown(thrown);
    if (transport instanceof ProcessGroupTransport && transport.exit) return this.closeReason(transport);
    if (transport instanceof ProcessGroupTransport && transport.stderr.trim()) {
      return `${message}; its stderr ended with: ${lastLines(transport.stderr.trim())}`;
    }
    return message;
  }

  private unavailable(reason: string): GoondanError {
    const where =
      this.options.config.transport === 'http' ? this.options.config.url : `command '${this.options.config.command}'`;
    return new GoondanError('E_MCP_UNAVAILABLE', `MCP server '${this.name}' (${where}) is unavailable: ${reason}`);
  }
}
