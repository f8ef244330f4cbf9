import { closeSync, fstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** An npm package found on disk: its directory (symlinks resolved) and package.json version. */
export interface InstalledPackage {
  dir: string;
  version: string;
}

/** An npm package that is there but cannot be used: why (a symlink loop, a package.json that is not JSON, …). */
export interface BrokenPackage {
  dir: string;
  problem: string;
}

/** npm's limit on a version's length (semver MAX_LENGTH); longer ones are not versions. */
const MAX_VERSION_LENGTH = 256;
/** A package.json larger than this is not read (a real one is a few kilobytes). */
const MAX_PACKAGE_JSON_BYTES = 1_000_000;
const versionPattern = /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? 'error';
}

/** The `version` of a package directory's package.json, or why it cannot be read. */
export function readPackageVersion(dir: string): { version: string } | { problem: string } {
  const file = join(dir, 'package.json');
  let fd: number | undefined;
  let text: string;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    if (size > MAX_PACKAGE_JSON_BYTES) {
      return { problem: `its package.json is ${size} bytes (at most ${MAX_PACKAGE_JSON_BYTES} are read)` };
    }
    text = readFileSync(fd, 'utf8');
  } catch (error) {
    return { problem: `its package.json cannot be read (${errorCode(error)})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'its package.json is not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { problem: 'its package.json is not a JSON object' };
  }
  // No version at all (a local package linked in) reads as 0.0.0, as before; a malformed one is never guessed at.
  const version = (json as { version?: unknown }).version ?? '0.0.0';
  if (typeof version !== 'string' || version.length > MAX_VERSION_LENGTH || !versionPattern.test(version)) {
    const shown =
      typeof version === 'string' && version.length > 40
        ? `a ${version.length}-character string`
        : JSON.stringify(version);
    return { problem: `the version in its package.json is not a semver version (got ${shown})` };
  }
  return { version };
}

/** The package.json `version` of a package directory, or null. */
export function packageVersion(dir: string): string | null {
  const read = readPackageVersion(dir);
  return 'version' in read ? read.version : null;
}

/**
 * Finds the npm package `name` as Node would from `fromDir`: `node_modules/<name>` in `fromDir`, then in each parent.
 * Reads the directory itself, not the package's `exports`, so a package that exports no `package.json` is found too.
 * A package found but unusable (a symlink loop, an unreadable or invalid package.json) is a BrokenPackage, never a
 * throw; its version is never made up.
 */
export function findInstalledPackage(name: string, fromDir: string): InstalledPackage | BrokenPackage | null {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    let isFile = false;
    try {
      isFile = statSync(join(candidate, 'package.json'), { throwIfNoEntry: false })?.isFile() ?? false;
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOTDIR') return { dir: candidate, problem: `${candidate} cannot be read (${code})` };
    }
    if (isFile) {
      let real: string;
      try {
        real = realpathSync(candidate);
      } catch (error) {
        return { dir: candidate, problem: `${candidate} cannot be read (${errorCode(error)})` };
      }
      const read = readPackageVersion(real);
      return 'version' in read ? { dir: real, version: read.version } : { dir: real, problem: read.problem };
    }
    if (dirname(dir) === dir) return null;
  }
}

// Spaces may follow an operator but never start a comparator, so the separators between comparators are the only
// place for them: the pattern cannot split a run of spaces in more than one way (no exponential backtracking).
const part = '(?:\\d+|[xX*])';
const comparator = `(?:(?:\\^|~|[<>]=?|=)\\s*)?v?${part}(?:\\.${part}){0,2}(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?`;
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
