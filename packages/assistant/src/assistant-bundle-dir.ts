import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of packages/assistant, the directory holding goondan.yaml with the assistant's Tool resources. */
export const assistantBundleDir: string = dirname(dirname(fileURLToPath(import.meta.url)));
