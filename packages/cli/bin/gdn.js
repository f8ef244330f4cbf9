#!/usr/bin/env node
// Thin launcher: the CLI is TypeScript that runs on Bun. Bun arrives as an npm dependency, so we resolve its
// binary from node_modules instead of relying on PATH, then hand over stdio and signals to it.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const bunBinary = join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe');
const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts');

const child = spawn(bunBinary, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
// The terminal sends SIGINT to the whole foreground group; Bun decides what Ctrl-C means, we only wait.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const signal of forwarded) {
  process.on(signal, () => {
    if (signal !== 'SIGINT') child.kill(signal);
  });
}
child.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  // Die of the same signal, so the caller sees it; our own listeners would otherwise swallow it (exit 0).
  for (const name of forwarded) process.removeAllListeners(name);
  process.kill(process.pid, signal);
});
