import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { GoondanError } from '@goondan/core/session';
import { shellWord } from '@goondan/core/shell-word';

/**
 * E_BUNDLE_NOT_FOUND for `--bundle DIR` (or `gdn validate DIR`) that holds no goondan.yaml, saying which case it
 * is: DIR does not exist, is not a directory, or is a directory without goondan.yaml; the suggestion names
 * `gdn init` to create a bundle there.
 */
export function bundleNotFoundAt(given: string): GoondanError {
  const init = `gdn init ${shellWord(given)}`;
  let isDirectory: boolean | undefined;
  try {
    isDirectory = statSync(resolve(given)).isDirectory();
  } catch {
    isDirectory = undefined;
  }
  if (isDirectory === undefined) {
    return new GoondanError('E_BUNDLE_NOT_FOUND', `The directory ${given} does not exist.`, {
      suggestion: `Check the path given to --bundle (the directory that holds goondan.yaml), or create a bundle there with ${init}.`,
    });
  }
  if (!isDirectory) {
    return new GoondanError(
      'E_BUNDLE_NOT_FOUND',
      `${given} is not a directory; --bundle takes the directory that holds goondan.yaml.`,
      { suggestion: 'Pass --bundle the directory of the bundle (the one holding goondan.yaml), not a file.' },
    );
  }
  return new GoondanError('E_BUNDLE_NOT_FOUND', `No goondan.yaml in ${given}.`, {
    suggestion: `Pass --bundle the directory that holds goondan.yaml, or create a bundle there with ${init}.`,
  });
}
