import type { ExtensionApi } from '@goondan/core';

/** Fixture extension: registers nothing; only its existence is checked at load time. */
export function register(_api: ExtensionApi): void {}
