import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of packages/base, the directory holding goondan.yaml with the base Tool resources. */
export const baseBundleDir: string = dirname(dirname(fileURLToPath(import.meta.url)));
