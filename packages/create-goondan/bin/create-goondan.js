#!/usr/bin/env node
// `npm create goondan [DIR] [--model NAME]` runs this: it is `gdn init` from the @goondan/cli installed beside it,
// with the same arguments, so both ways of starting a bundle write the same files.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
let cliDir;
try {
  cliDir = dirname(require.resolve('@goondan/cli/package.json'));
} catch {
  // An install that lost its dependency (a partial npm install, a copied bin): said plainly, not as a stack trace.
  console.error(
    'create-goondan: @goondan/cli is not installed beside it; nothing was written. Run `npx @goondan/cli init DIR` instead, or reinstall create-goondan.',
  );
  process.exit(127);
}
const gdn = join(cliDir, 'bin', 'gdn');
const result = spawnSync(gdn, ['init', ...process.argv.slice(2)], { stdio: 'inherit' });
if (result.error) {
  console.error(`create-goondan: cannot start ${gdn}: ${result.error.message}`);
  process.exit(127);
}
// Killed by a signal (Ctrl-C): end the same way, so npm and the shell see it.
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status ?? 1);
