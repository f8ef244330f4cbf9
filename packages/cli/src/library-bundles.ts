import { assistantBundleDir } from '@goondan/assistant';
// The subpath, not the barrel: the barrel loads the channels' clients (grammy, node:http), ~50 ms of every start.
import { baseBundleDir } from '@goondan/base/bundle-dir';

/** The library bundles loaded beside every bundle: their Tools and Extensions can be referenced without declaring them. */
export const libraryBundleDirs: readonly string[] = [baseBundleDir, assistantBundleDir];
