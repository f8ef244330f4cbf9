import { statSync } from 'node:fs';
import { openToolProcessTree, settlesWithin } from '@goondan/core';
import {
  deserializeMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  serializeMessage,
} from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Subprocess } from 'bun';
import { type CutLine, idOfCutMessage, isCutRequest, LineReader } from '../../src/line-reader.ts';

export interface ProcessGroupTransportOptions {
  command: string;
  args: string[];
  /** The whole environment of the server (nothing is inherited beyond it). */
  env: Record<string, string>;
  cwd: string;
  /** After stdin is closed, how long the server may take to exit before its process group gets SIGTERM. */
  exitGraceMs?: number;
  /** Each line the server writes to stderr. */
  onStderrLine?: (line: string) => void;
}

/** The largest message read from the server's stdout: the SDK's own stdio limit (10 MiB). */
export const MAX_SERVER_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;
const DEFAULT_EXIT_GRACE_MS = 500;
const TERM_GRACE_MS = 1_000;
const STDERR_TAIL_CHARS = 2_000;
/** Once the server has exited, how long its stderr may take to be read to the end (a grandchild may hold it). */
const STDERR_DRAIN_MS = 500;

type ServerProcess = Subprocess<'pipe', 'pipe', 'pipe'>;

/** Sends `signal` to every process of the group led by `pid`; quiet when the group is gone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/**
 * MCP stdio client transport (newline-delimited JSON-RPC over the server's stdin/stdout, as the SDK's own) that
 * starts the server in a process group of its own, so that closing it, or the server dying, leaves no process
 * behind: whatever the server started is killed with it. Shutdown follows the MCP stdio rules: close stdin, wait,
 * SIGTERM, then SIGKILL. The tail of the server's stderr is kept for error messages.
 *
 * A line of its stdout longer than MAX_SERVER_MESSAGE_BYTES is not held whole: it is skipped, and when it is the
 * answer to one of our requests (its id read at either end), that request is answered with an error saying so. The
 * SDK's ReadBuffer throws there and loses its place in the stream, so the server had to be killed, and with it every
 * call in flight; a line that is not a JSON-RPC message is reported (onerror) and the next one read.
 */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ServerProcess | null = null;
  private readonly lines = new LineReader({
    maxLineBytes: MAX_SERVER_MESSAGE_BYTES,
    onLine: (line) => this.receive(line),
    onCut: (line) => this.refuseCut(line),
  });
  private stderrTail = '';
  private closed: Promise<void> | null = null;
  private exitDescription: string | null = null;

  constructor(private readonly options: ProcessGroupTransportOptions) {}

  /** The server's process id (its process group id too) while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The last lines the server wrote to stderr. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** How the server ended (`exit code 1`, `signal SIGKILL`), once it has. */
  get exit(): string | null {
    return this.exitDescription;
  }

  async start(): Promise<void> {
    if (this.child || this.closed) throw new Error('ProcessGroupTransport already started');
    const { command, args, env, cwd } = this.options;
    // posix_spawn blames the command for a missing cwd; say what is really wrong.
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`cwd '${cwd}' is not a directory`);
    // Marked as a tool process tree: what the server starts outside its group dies with it, and the runtime's
    // process guard kills it all if the runtime itself is killed (docs/security.md#process-trees).
    const tree = openToolProcessTree();
    const child = Bun.spawn([command, ...args], {
      cwd,
      env: { ...env, ...tree.variables },
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      detached: true,
    });
    this.child = child;
    const stdoutDone = this.readStdout(child);
    const stderrDone = this.readStderr(child);
    this.closed = (async () => {
      const code = await child.exited;
      this.exitDescription = child.signalCode ? `signal ${child.signalCode}` : `exit code ${code}`;
      // The leader is gone; end what it left in its group and tree, which also releases the stdout pipe.
      signalGroup(child.pid, 'SIGKILL');
      tree.kill();
      await stdoutDone;
      // What it wrote to stderr before it ended belongs in the message about its end.
      await settlesWithin(stderrDone, STDERR_DRAIN_MS);
      this.child = null;
      this.lines.clear();
      this.onclose?.();
    })();
  }

  /**
   * True once the server process has ended, within `ms`: its exit and the whole of its stderr are known then (what
   * describes a server that died as it started, when our first write met a closed pipe before its exit was seen).
   */
  async ended(ms: number): Promise<boolean> {
    if (this.closed === null) return false;
    return settlesWithin(this.closed, ms);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child) throw new Error('Not connected: the MCP server process is not running');
    child.stdin.write(serializeMessage(message));
    await child.stdin.flush();
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return this.closed ?? undefined;
    try {
      await child.stdin.end();
    } catch {
      // Already closed by the server.
    }
    if (!(await exitsWithin(child, this.options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS))) {
      signalGroup(child.pid, 'SIGTERM');
      if (!(await exitsWithin(child, TERM_GRACE_MS))) signalGroup(child.pid, 'SIGKILL');
    }
    await this.closed;
  }

  private async readStdout(child: ServerProcess): Promise<void> {
    try {
      for await (const chunk of child.stdout) this.lines.push(Buffer.from(chunk));
    } catch (thrown) {
      // A broken pipe: the stream cannot be trusted any more, so the server goes.
      this.onerror?.(thrown as Error);
      signalGroup(child.pid, 'SIGKILL');
    }
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (thrown) {
      this.onerror?.(thrown as Error);
      return;
    }
    this.onmessage?.(message);
  }

  /** A line over the limit: an answer to one of our requests fails that request; anything else is reported. */
  private refuseCut(line: CutLine): void {
    const limit = `${MAX_SERVER_MESSAGE_BYTES} (10 MiB) a message on stdio may be`;
    const id = isCutRequest(line) ? null : idOfCutMessage(line);
    if (id === null) {
      this.onerror?.(new Error(`a message of ${line.bytes} bytes, more than the ${limit}, was skipped`));
      return;
    }
    const message = `the answer was ${line.bytes} bytes, more than the ${limit}; it was skipped. Ask for less at a time`;
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message } });
  }

  private async readStderr(child: ServerProcess): Promise<void> {
    const decoder = new TextDecoder();
    let pending = '';
    try {
      for await (const chunk of child.stderr) {
        const text = decoder.decode(chunk, { stream: true });
        this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
        pending += text;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') this.options.onStderrLine?.(line);
      }
    } catch {
      // The pipe went away with the process.
    }
    if (pending.trim() !== '') this.options.onStderrLine?.(pending);
  }
}

async function exitsWithin(child: ServerProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return settlesWithin(child.exited, ms);
}
