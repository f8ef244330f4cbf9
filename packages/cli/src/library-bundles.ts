import { assistantBundleDir } from '@goondan/assistant';
import { baseBundleDir } from '@goondan/base';

/** The library bundles loaded beside every bundle: their Tools and Extensions can be referenced without declaring them. */
export const libraryBundleDirs: readonly string[] = [baseBundleDir, assistantBundleDir];
