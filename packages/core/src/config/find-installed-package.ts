import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** An npm package found on disk: its directory (symlinks resolved) and package.json version. */
export interface InstalledPackage {
  dir: string;
  version: string;
}

/** The package.json `version` of a package directory, or null. */
export function packageVersion(dir: string): string | null {
  try {
    const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

/**
 * Finds the npm package `name` as Node would from `fromDir`: `node_modules/<name>` in `fromDir`, then in each parent.
 * Reads the directory itself, not the package's `exports`, so a package that exports no `package.json` is found too.
 */
export function findInstalledPackage(name: string, fromDir: string): InstalledPackage | null {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (statSync(join(candidate, 'package.json'), { throwIfNoEntry: false })?.isFile()) {
      const real = realpathSync(candidate);
      return { dir: real, version: packageVersion(real) ?? '0.0.0' };
    }
    if (dirname(dir) === dir) return null;
  }
}

const part = '(?:\\d+|[xX*])';
const comparator = `(?:\\^|~|[<>]=?|=)?\\s*v?${part}(?:\\.${part}){0,2}(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?`;
const rangePattern = new RegExp(
  `^\\s*${comparator}(?:\\s+-\\s+${comparator}|(?:\\s*\\|\\|\\s*|\\s+)${comparator})*\\s*$`,
);

/** Whether `range` reads as an npm semver range (`^0.1.0`, `>=1 <2`, `1.x || 2`, `*`); Bun's semver accepts anything. */
export function isSemverRange(range: string): boolean {
  return range.length <= 256 && rangePattern.test(range);
}

/** Whether `version` satisfies the semver `range` (Bun's own semver, as npm reads ranges). */
export function satisfiesRange(version: string, range: string): boolean {
  if (!isSemverRange(range)) return false;
  try {
    return Bun.semver.satisfies(version, range);
  } catch {
    return false;
  }
}
