// Flips `<workdir>/d` between a real directory and a symbolic link to `<outside>` as fast as it can, to race the
// file-system tools' confinement (symlink-swap-race.test.ts). Prints "swapping" once the first flip is done; stops
// when killed, when its parent goes away, or after `<seconds>`.
import { renameSync, rmSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';

const [workdir, outside, seconds] = process.argv.slice(2) as [string, string, string];
const parent = process.ppid;
const stopAt = Date.now() + Number(seconds) * 1000;
const flipped = `${workdir}/d`;
const aside = `${workdir}/d.real`;

for (let round = 0; ; round++) {
  try {
    renameSync(flipped, aside);
  } catch {}
  try {
    symlinkSync(outside, flipped);
  } catch {}
  if (round === 0) writeSync(1, 'swapping\n');
  try {
    unlinkSync(flipped);
  } catch {
    // A directory a tool created while `d` was away: not the one set aside, so it can go.
    rmSync(flipped, { recursive: true, force: true });
  }
  try {
    renameSync(aside, flipped);
  } catch {}
  if (round % 1000 === 999 && (process.ppid !== parent || Date.now() > stopAt)) break;
}
