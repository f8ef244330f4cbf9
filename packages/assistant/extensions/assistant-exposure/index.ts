/**
 * Extension assistant-exposure: base's tool-exposure with the assistant pack's preset (a small always-on core,
 * self-editing and administration groups on demand; ../../src/exposure/assistant-exposure-preset.ts). The Agent's
 * own config is added to the preset: its baseline after the preset's, its groups over groups of the same name;
 * every other field (defaultTtlMinutes, listLimit, repeatLimit) as for tool-exposure. Load this one OR
 * tool-exposure, not both (they would register the same tools__* tools).
 */
import { registerToolExposure } from '@goondan/base';
import type { ExtensionApi } from '@goondan/core';
import { assistantExposurePreset } from '../../src/exposure/assistant-exposure-preset.ts';

export function register(api: ExtensionApi): void {
  registerToolExposure(api, assistantExposurePreset);
}
