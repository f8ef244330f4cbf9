/**
 * Extension tool-exposure: baseline vs on-demand tool exposure (builtin-tools-assistant.md "도구 레지스트리",
 * names per spec README decision 3). The model sees the registry-control tools, the baseline and what it enabled
 * with `tools__enable` (until the TTL runs out); every other tool in the catalog stays out of the request, and the
 * executor's guard refuses calls to it. State is per agent instance, persisted, and cleared on conversation reset.
 *
 * config:
 *   baseline: [greet__hello, "group:files"]    # always exposed (tool names or group:NAME)
 *   groups: { files: [file-system__read, file-system__list] }
 *   defaultTtlMinutes: 60                       # 1..1440
 *   listLimit: 200                              # on-demand tools named by tools__list
 *   repeatLimit: 2                              # identical calls per turn before E_TOOL_REPEATED (0: off)
 */
import type { ExtensionApi } from '@goondan/core';
import { registerToolExposure } from './register-tool-exposure.ts';

export function register(api: ExtensionApi): void {
  registerToolExposure(api);
}
