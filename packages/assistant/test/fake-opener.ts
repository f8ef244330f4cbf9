import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { clearAvailabilityCache } from '@goondan/core';

/**
 * A fake `xdg-open` (and `open`) in `dir`/bin that appends its arguments to `dir`/opened.log, one per line, or fails
 * with exit 3 and a message when `fail` is set. Put first on PATH with `path`.
 */
export function fakeOpener(dir: string, options: { fail?: boolean } = {}) {
  const bin = join(dir, 'bin');
  const log = join(dir, 'opened.log');
  mkdirSync(bin, { recursive: true });
  writeFileSync(log, '');
  const body = options.fail
    ? `#!/bin/sh\necho "xdg-open: no method available for opening '$1'" >&2\nexit 3\n`
    : `#!/bin/sh\nfor arg in "$@"; do printf '%s\\n' "$arg" >> '${log}'; done\n`;
  for (const name of ['xdg-open', 'open']) {
    writeFileSync(join(bin, name), body);
    chmodSync(join(bin, name), 0o755);
  }
  clearAvailabilityCache();
  return {
    path: `${bin}${delimiter}${process.env.PATH ?? ''}`,
    opened: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}
