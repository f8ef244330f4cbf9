import { join } from 'node:path';
import { findCommand } from '@goondan/core';

/**
 * Real desktop pieces for the device tests, started once per test file: a private D-Bus session bus, an Xvfb display,
 * the fake MPRIS player. A missing program fails the test saying what to install (.ci/apt-packages has them).
 */

function need(command: string, debianPackage: string): void {
  if (!findCommand(command)) {
    throw new Error(
      `${command} is not installed: the device tests need it (apt-get install ${debianPackage}; listed in .ci/apt-packages)`,
    );
  }
}

/** Lines a child prints, as they come; `next(pattern)` waits for the first (later) line that matches. */
class Lines {
  readonly seen: string[] = [];
  private waiters: { pattern: RegExp; from: number; resolve: (line: string) => void }[] = [];

  constructor(stream: ReadableStream<Uint8Array>) {
    void this.read(stream);
  }

  private async read(stream: ReadableStream<Uint8Array>) {
    let buffered = '';
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        this.seen.push(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
      this.notify();
    }
  }

  private notify() {
    this.waiters = this.waiters.filter((waiter) => {
      const line = this.seen.slice(waiter.from).find((each) => waiter.pattern.test(each));
      if (line === undefined) return true;
      waiter.resolve(line);
      return false;
    });
  }

  /** The first line from index `from` on that matches (default: any line seen so far or later). */
  next(pattern: RegExp, from = 0): Promise<string> {
    return new Promise((resolve) => {
      this.waiters.push({ pattern, from, resolve });
      this.notify();
    });
  }
}

export interface Started {
  stop(): void;
}

/** A session bus of our own (`dbus-daemon --session`): its address, for DBUS_SESSION_BUS_ADDRESS. */
export async function startSessionBus(): Promise<Started & { address: string }> {
  need('dbus-daemon', 'dbus');
  const proc = Bun.spawn(['dbus-daemon', '--session', '--nofork', '--nopidfile', '--print-address=1'], {
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const address = (await new Lines(proc.stdout).next(/^unix:/)).trim();
  return { address, stop: () => proc.kill() };
}

/** An X server without a screen (Xvfb) on a display it picks itself (-displayfd): its DISPLAY value. */
export async function startXvfb(): Promise<Started & { display: string }> {
  need('Xvfb', 'xvfb');
  const proc = Bun.spawn(['Xvfb', '-displayfd', '1', '-nolisten', 'tcp', '-screen', '0', '320x240x24'], {
    stdout: 'pipe',
    stderr: 'ignore',
  });
  const number = (await new Lines(proc.stdout).next(/^\d+$/)).trim();
  return { display: `:${number}`, stop: () => proc.kill() };
}

/** The fake MPRIS player (fake-mpris-player.ts) on `address`, once it owns org.mpris.MediaPlayer2.<name>. */
export async function startFakePlayer(address: string, name = 'fake'): Promise<Started & { lines: Lines }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'fake-mpris-player.ts'), address, name], {
    cwd: import.meta.dir,
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const lines = new Lines(proc.stdout);
  await lines.next(/^ready$/);
  return { lines, stop: () => proc.kill() };
}

/** Sets environment variables for the test file and gives back a function that restores them. */
export function setEnvironment(values: Record<string, string | undefined>): () => void {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (next: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(next)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  return () => apply(before);
}
