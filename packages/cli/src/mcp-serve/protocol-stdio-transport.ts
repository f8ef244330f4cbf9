import { type CutLine, idOfCutMessage, LineReader } from '@goondan/base/line-reader';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ProtocolOutput } from '../reserve-stdout.ts';
import { paramsProblemOf, problemOf, requestIdOf } from './jsonrpc-problem.ts';

/** The largest message read from stdin: the SDK's own stdio limit (10 MiB). */
export const MAX_STDIO_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

type RequestId = string | number;

/**
 * The code of a request before initialize: the one the SDK's streamable HTTP transport answers it with (`Bad Request:
 * Server not initialized`), so stdio and `--http` say the same.
 */
export const NOT_INITIALIZED = -32000;

/**
 * The server side of MCP over stdio (one JSON-RPC message per line), like the SDK's StdioServerTransport but
 * for a server that must not stop serving because one line was wrong. The SDK's transport closes when a message
 * is over its buffer limit (the server then exits, quietly, with status 0) and drops a line it cannot read without
 * a word. Here each such line is logged on stderr and, when it can be, answered, and the next line is read:
 *
 * - over MAX_STDIO_MESSAGE_BYTES: -32600, with the request's id when it can be read at either end of the line;
 * - not JSON: -32700 Parse error (id null);
 * - a batch (an array; MCP sends one message per line since 2025-06-18): -32600 for each request in it;
 * - not a JSON-RPC 2.0 message (another jsonrpc version, no method): -32600; params that are not an object: -32602.
 *
 * It also keeps MCP's lifecycle, which the SDK's Server does not (it answers tools/list before initialize): the
 * initialization must be the first interaction. Before `initialize` a request other than `ping` is answered -32000
 * `Server not initialized` (what the SDK's streamable HTTP transport, and so `--http`, answers a request before
 * initialize), a notification is ignored; a second `initialize` is -32600 `Server already initialized` (as over HTTP).
 *
 * Messages are written with `output`, the real standard output (reserveStdout). When it breaks (the client closed
 * its end of the pipe: EPIPE), nobody can read an answer any more: the transport closes (the server then ends, as
 * when stdin closes) instead of running every call still sent for nobody.
 */
export class ProtocolStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly lines: LineReader;
  private readonly maxMessageBytes: number;
  /** While the output is full: settled at its next `drain` (one listener for every send that waits). */
  private drained: { promise: Promise<void>; resolve: () => void } | null = null;
  /** Why the output cannot be written any more. */
  private broken: Error | null = null;
  /** Once a valid `initialize` came: from then on every message goes to the server, and another initialize is refused. */
  private initialized = false;

  constructor(
    private readonly options: {
      input: NodeJS.ReadableStream;
      output: ProtocolOutput;
      logger: Console;
      maxMessageBytes?: number;
    },
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
    this.lines = new LineReader({
      maxLineBytes: this.maxMessageBytes,
      onLine: (line) => this.receive(line),
      onCut: (line) => this.refuseCut(line),
    });
  }

  private readonly onData = (chunk: Buffer) => this.lines.push(chunk);
  private readonly onError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    this.options.input.on('data', this.onData);
    this.options.input.on('error', this.onError);
    this.options.output.on('error', (error) => this.outputFailed(error));
  }

  async close(): Promise<void> {
    const { input } = this.options;
    input.off('data', this.onData);
    input.off('error', this.onError);
    if (input.listenerCount('data') === 0) input.pause();
    this.lines.clear();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // Once the output broke, what is sent is dropped: the failure was said once (outputFailed), not per message.
    if (this.broken) return Promise.resolve();
    try {
      if (this.options.output.write(serializeMessage(message))) return this.drained?.promise ?? Promise.resolve();
    } catch (thrown) {
      this.outputFailed(thrown as Error);
      return Promise.resolve();
    }
    if (!this.drained) {
      const drained = Promise.withResolvers<void>();
      this.drained = drained;
      this.options.output.once('drain', () => {
        if (this.drained === drained) this.drained = null;
        drained.resolve();
      });
    }
    return this.drained.promise;
  }

  /** The output broke: said once on stderr, sends waiting for it end, and the transport closes. */
  private outputFailed(error: Error): void {
    if (this.broken) return;
    this.broken = error;
    this.options.logger.error(
      `gdn mcp serve: stdout: ${error?.message ?? error}; the client no longer reads the answers, so the server stops`,
    );
    this.drained?.resolve();
    this.drained = null;
    void this.close();
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (thrown) {
      const why = (thrown as Error)?.message ?? String(thrown);
      this.refuse({
        ids: [null],
        code: ErrorCode.ParseError,
        message: `Parse error: the line is not JSON (${why})`,
        log: `a line that is not JSON was skipped (${JSON.stringify(line.slice(0, 60))}${line.length > 60 ? '...' : ''}: ${why})`,
      });
      return;
    }
    if (Array.isArray(value)) {
      const ids = value.map(requestIdOf).filter((id) => id !== undefined);
      this.refuse({
        ids: ids.length > 0 ? ids : [null],
        code: ErrorCode.InvalidRequest,
        message: 'Invalid Request: a batch (a JSON array) is not supported; send one JSON-RPC message per line',
        log: `a batch of ${value.length} message${value.length === 1 ? '' : 's'} was skipped (MCP sends one message per line)`,
      });
      return;
    }
    const checked = JSONRPCMessageSchema.safeParse(value);
    const paramsProblem = checked.success && requestIdOf(value) !== undefined ? paramsProblemOf(value) : null;
    if (paramsProblem) {
      this.refuse({
        ids: [requestIdOf(value)!],
        code: ErrorCode.InvalidParams,
        message: `Invalid params: ${paramsProblem}`,
        log: `a request was refused: ${paramsProblem}`,
      });
      return;
    }
    if (checked.success) {
      if (this.admits(checked.data as JSONRPCMessage)) this.onmessage?.(checked.data as JSONRPCMessage);
      return;
    }
    const { code, problem } = problemOf(value);
    const isAnswer = typeof value === 'object' && value !== null && ('result' in value || 'error' in value);
    const id = requestIdOf(value);
    this.refuse({
      // An answer to something we asked is never answered back.
      ids: isAnswer ? [] : [id ?? null],
      code,
      message: `${code === ErrorCode.InvalidParams ? 'Invalid params' : 'Invalid Request'}: ${problem}`,
      log: `a message was skipped: ${problem}`,
    });
  }

  /**
   * MCP's lifecycle: true when the message goes to the server; otherwise it was answered (or, a notification, ignored)
   * here. Answers (`result`, `error`) always go on: the server says what it makes of them.
   */
  private admits(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return true;
    // The method as the client wrote it, quoted (its control characters escaped) and cut, for the log line.
    const method = `${JSON.stringify(message.method.slice(0, 60))}${message.method.length > 60 ? '...' : ''}`;
    if (!('id' in message)) {
      if (this.initialized) return true;
      this.options.logger.error(`gdn mcp serve: stdin: a notification (${method}) before initialize was ignored`);
      return false;
    }
    const id = message.id as RequestId;
    if (message.method === 'initialize') {
      if (!this.initialized) {
        this.initialized = true;
        return true;
      }
      this.refuse({
        ids: [id],
        code: ErrorCode.InvalidRequest,
        message: 'Invalid Request: Server already initialized; a connection is initialized once',
        log: 'a second initialize was refused (a connection is initialized once)',
      });
      return false;
    }
    if (this.initialized || message.method === 'ping') return true;
    this.refuse({
      ids: [id],
      code: NOT_INITIALIZED,
      message: 'Server not initialized: send initialize first (before it, only ping is answered)',
      log: `a request (${method}) before initialize was refused`,
    });
    return false;
  }

  private refuseCut(line: CutLine): void {
    const limit = `${this.maxMessageBytes} bytes (${(this.maxMessageBytes / 1024 / 1024).toFixed(0)} MiB)`;
    this.refuse({
      ids: [idOfCutMessage(line)],
      code: ErrorCode.InvalidRequest,
      message: `Invalid Request: a message on stdin may be at most ${limit}; this one (${line.bytes} bytes) was skipped. Pass large data as a file path instead.`,
      log: `a message of ${line.bytes} bytes, more than ${limit}, was skipped`,
    });
  }

  private refuse(options: { ids: Array<RequestId | null>; code: number; message: string; log: string }): void {
    const { ids, code, message, log } = options;
    const answered = ids.length === 0 ? 'not answered (an answer)' : `answered ${code}`;
    this.options.logger.error(`gdn mcp serve: stdin: ${log}; ${answered}`);
    for (const id of ids) {
      this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((thrown) =>
        this.onerror?.(thrown as Error),
      );
    }
  }
}
