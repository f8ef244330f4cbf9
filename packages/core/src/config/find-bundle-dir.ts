import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';

/** The file that marks a bundle's root directory. */
export const BUNDLE_FILE_NAME = 'goondan.yaml';

/** Whether `path` is a regular file (through symbolic links); false, never a throw, for a link loop or a denied path. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The nearest directory at or above `startDir` that holds goondan.yaml; throws E_BUNDLE_NOT_FOUND when there is none.
 * @example findBundleDir(process.cwd()) // '/home/me/my-agent'
 */
export function findBundleDir(startDir: string): string {
  const start = resolve(startDir);
  for (let dir = start; ; dir = dirname(dir)) {
    if (isFile(join(dir, BUNDLE_FILE_NAME))) return dir;
    if (dirname(dir) === dir) break;
  }
  throw new GoondanError('E_BUNDLE_NOT_FOUND', `No ${BUNDLE_FILE_NAME} in ${start} or any directory above it`);
}
