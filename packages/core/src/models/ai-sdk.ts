type AiSdk = typeof import('ai');
let sdk: AiSdk | undefined;

/**
 * The AI SDK (`ai`), required at its first use (a step's model call) rather than imported at the top: with zod and
 * the provider utilities it is most of an agent process's memory (about 18 MB, ~150 ms to load), and an idle agent
 * process makes no model call (docs/performance.md#memory). `ai` ships only an ES module, and Bun's require of it
 * returns the module instance an import would, so classes and `isInstance` checks agree with the rest of the code.
 */
export function aiSdk(): AiSdk {
  sdk ??= require('ai') as AiSdk;
  return sdk;
}

type ProviderUtils = typeof import('@ai-sdk/provider-utils');
let utils: ProviderUtils | undefined;

/** The AI SDK's provider utilities (its retry with backoff), required with the SDK at the first model call. */
export function providerUtils(): ProviderUtils {
  utils ??= require('@ai-sdk/provider-utils') as ProviderUtils;
  return utils;
}
