import { resolve } from 'node:path';
import { baseDir } from './swarm-fixture.ts';

const main = resolve(import.meta.dir, '__fixtures__', 'nats-worker-main.ts');

/** A worker process (optionally inside a network namespace): the lines it printed, and the pids it took. */
export interface WorkerProcess {
  pid: number;
  lines: string[];
  /** `agent/instance` → pid of the agent processes it started. */
  took: Map<string, number>;
  exited: Promise<number>;
  kill(signal?: NodeJS.Signals): void;
}

export async function startWorkerProcess(options: {
  url: string;
  namespace: string;
  leaseTtlMs: number;
  netns?: string;
}): Promise<WorkerProcess> {
  const command = [process.execPath, main, options.url, options.namespace, baseDir, String(options.leaseTtlMs)];
  const child = Bun.spawn(options.netns ? ['ip', 'netns', 'exec', options.netns, ...command] : command, {
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const lines: string[] = [];
  const took = new Map<string, number>();
  let readyResolve: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    readyResolve = resolve;
  });
  void (async () => {
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of child.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        lines.push(line);
        if (line.startsWith('ready ')) readyResolve();
        const match = /^took (\S+) \(pid (\d+)\)/.exec(line);
        if (match) took.set(match[1]!, Number(match[2]));
      }
    }
  })();
  const exited = child.exited;
  await Promise.race([
    ready,
    exited.then((code) => {
      throw new Error(`the worker process exited with code ${code} before it was ready: ${lines.join(' | ')}`);
    }),
  ]);
  return { pid: child.pid, lines, took, exited, kill: (signal = 'SIGTERM') => child.kill(signal) };
}
