import { statSync } from 'node:fs';
import { openToolProcessTree } from '@goondan/core';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Subprocess } from 'bun';

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

const DEFAULT_EXIT_GRACE_MS = 500;
const TERM_GRACE_MS = 1_000;
const STDERR_TAIL_CHARS = 2_000;

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
 */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ServerProcess | null = null;
  private readonly readBuffer = new ReadBuffer();
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
    void this.readStderr(child);
    this.closed = (async () => {
      const code = await child.exited;
      this.exitDescription = child.signalCode ? `signal ${child.signalCode}` : `exit code ${code}`;
      // The leader is gone; end what it left in its group and tree, which also releases the stdout pipe.
      signalGroup(child.pid, 'SIGKILL');
      tree.kill();
      await stdoutDone;
      this.child = null;
      this.readBuffer.clear();
      this.onclose?.();
    })();
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
      for await (const chunk of child.stdout) {
        // A copy: the buffer keeps chunks, and a stream may reuse its memory.
        this.readBuffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.readBuffer.readMessage();
          } catch (thrown) {
            this.onerror?.(thrown as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      }
    } catch (thrown) {
      // An oversized message or a broken pipe: the stream cannot be trusted any more, so the server goes.
      this.onerror?.(thrown as Error);
      signalGroup(child.pid, 'SIGKILL');
    }
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const exited = await Promise.race([child.exited.then(() => true as const), timeout]);
  clearTimeout(timer);
  return exited;
}
