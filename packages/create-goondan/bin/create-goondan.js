#!/usr/bin/env node
// `npm create goondan [DIR] [--model NAME]` runs this: it is `gdn init` from the @goondan/cli installed beside it,
// with the same arguments, so both ways of starting a bundle write the same files.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const cliDir = dirname(require.resolve('@goondan/cli/package.json'));
const gdn = join(cliDir, 'bin', 'gdn');
const result = spawnSync(gdn, ['init', ...process.argv.slice(2)], { stdio: 'inherit' });
if (result.error) {
  console.error(`create-goondan: cannot start ${gdn}: ${result.error.message}`);
  process.exit(127);
}
process.exit(result.status ?? 1);
