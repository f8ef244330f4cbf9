import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { yamlLimits } from './parse-yaml-documents.ts';

/**
 * The text of `path` for a code frame (formatProblems' `readFile`), or undefined unless it is a regular file of at
 * most the loader's size limit. Problems often name files the loader refused: a FIFO (reading blocks forever), a
 * device such as /dev/zero (never ends), a huge sparse file. Checked before opening, then again on the opened file
 * (opened non-blocking, so even a FIFO swapped in meanwhile cannot block), so the answer is about what is read.
 * @example formatProblems(problems, { color, readFile: (file) => readSourceText(join(bundleDir, file)) })
 */
export function readSourceText(path: string): string | undefined {
  const usable = (stats: { isFile(): boolean; size: number }) => stats.isFile() && stats.size <= yamlLimits.maxBytes;
  let fd: number | undefined;
  try {
    if (!usable(statSync(path))) return undefined;
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!usable(fstatSync(fd))) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
