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
import { registerControlTools } from './control-tools.ts';
import { enableRequestsMiddleware } from './enable-requests.ts';
import { Exposure } from './exposure.ts';
import { parseExposureConfig } from './exposure-config.ts';
import { ExposureState } from './exposure-state.ts';
import { repeatGuard } from './repeat-guard.ts';

/** Runs early (outer) so later step middleware sees the exposed catalog; tool-search observes before it (-1000). */
export const EXPOSURE_STEP_PRIORITY = -100;
/** Inside logging (-10 000), so a refused repeat is still logged, but outside other toolCall middleware. */
export const REPEAT_GUARD_PRIORITY = -5000;

export function register(api: ExtensionApi): void {
  const config = parseExposureConfig(api.config);
  const exposure = new Exposure(api, config, new ExposureState(api.state, config.defaultTtlMinutes));
  registerControlTools(api, exposure);
  api.pipeline.register(
    'step',
    async (ctx) => {
      ctx.toolCatalog = exposure.filter(ctx.toolCatalog);
      return ctx.next();
    },
    { priority: EXPOSURE_STEP_PRIORITY },
  );
  api.pipeline.register('toolCall', enableRequestsMiddleware(api, exposure));
  // Outermost toolCall middleware: a repeated call is answered before any other middleware (or approval) runs.
  const guard = repeatGuard(config.repeatLimit);
  api.pipeline.register('turn', guard.turn);
  api.pipeline.register('toolCall', guard.toolCall, { priority: REPEAT_GUARD_PRIORITY });
  // "세션 종료 시 자동 리셋": a new conversation starts from the baseline again.
  api.onConversationReset(() => exposure.forget());
}
