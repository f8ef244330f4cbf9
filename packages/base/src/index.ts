// The public API of @goondan/base: the built-in Tools (declared in goondan.yaml beside this package) and the
// safety helpers they are built on, for reuse by other tools.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of packages/base, the directory holding goondan.yaml with the base Tool resources. */
export const baseBundleDir: string = dirname(dirname(fileURLToPath(import.meta.url)));

export { blockedAddressReason, isBlockedAddress } from './is-blocked-address.ts';
export { type ResolvedPath, resolveInsideWorkdir } from './resolve-inside-workdir.ts';
export { isSecretVariable, scrubEnvironment } from './scrub-environment.ts';
