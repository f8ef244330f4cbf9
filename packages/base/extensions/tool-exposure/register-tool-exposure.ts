import type { ExtensionApi, JsonObject, JsonValue } from '@goondan/core';
import { now } from './clock.ts';
import { registerControlTools } from './control-tools.ts';
import { deferCatalog, deferredGuard, toolReferences } from './deferred-exposure.ts';
import { enableRequestsMiddleware } from './enable-requests.ts';
import { Exposure } from './exposure.ts';
import { parseExposureConfig } from './exposure-config.ts';
import { ExposureState } from './exposure-state.ts';
import { repeatGuard } from './repeat-guard.ts';

/** Runs early (outer) so later step middleware sees the exposed catalog; tool-search observes before it (-1000). */
export const EXPOSURE_STEP_PRIORITY = -100;
/** Inside logging (-10 000), so a refused repeat is still logged, but outside other toolCall middleware. */
export const REPEAT_GUARD_PRIORITY = -5000;

/**
 * A tool pack's exposure defaults (e.g. @goondan/assistant's): baseline entries and groups put in front of the
 * Agent's own config. The Agent's groups win over the preset's groups of the same name. Preset names with no tool
 * behind them are not warned about: an Agent may list only some of the pack's Tools.
 */
export interface ExposurePreset {
  baseline: readonly string[];
  groups: Readonly<Record<string, readonly string[]>>;
}

function withPreset(config: Readonly<JsonObject>, preset: ExposurePreset): JsonObject {
  const own = config.groups;
  const ownGroups = typeof own === 'object' && own !== null && !Array.isArray(own) ? own : {};
  const baseline = Array.isArray(config.baseline) ? config.baseline : [];
  return {
    ...config,
    // A malformed own value is passed on unchanged so parseExposureConfig names it.
    baseline:
      config.baseline === undefined || Array.isArray(config.baseline)
        ? [...preset.baseline, ...baseline]
        : config.baseline,
    groups:
      own === undefined || ownGroups === own
        ? ({ ...(preset.groups as Record<string, JsonValue>), ...ownGroups } as JsonObject)
        : (own as JsonValue),
  };
}

function presetNames(preset: ExposurePreset): Set<string> {
  return new Set([...preset.baseline, ...Object.values(preset.groups).flat()]);
}

/**
 * Registers tool exposure (control tools, the step filter, enable requests, the repeat guard) on `api`, with an
 * optional preset of a tool pack. The Extension `tool-exposure` is this without a preset.
 * @example registerToolExposure(api, { baseline: ['group:core'], groups: { core: ['datetime__now'] } })
 */
export function registerToolExposure(api: ExtensionApi, preset?: ExposurePreset): void {
  const config = parseExposureConfig(preset ? withPreset(api.config, preset) : api.config);
  const state = new ExposureState(api.state, config.defaultTtlMinutes);
  const exposure = new Exposure(api, config, state, preset ? presetNames(preset) : new Set());
  registerControlTools(api, exposure);
  const baseline = new Set(config.baseline);
  // Mode deferred: whether this step's model defers (else the default mode, said once), and what its tool search
  // has loaded in the conversation the model reads.
  let deferring = false;
  let fallbackWarned = false;
  let discovered: ReadonlySet<string> = new Set();
  api.pipeline.register(
    'step',
    async (ctx) => {
      const filtered = exposure.filter(ctx.toolCatalog);
      deferring = config.mode === 'deferred' && ctx.deferredTools === true;
      if (deferring) {
        discovered = toolReferences(ctx.messages);
        ctx.toolCatalog = deferCatalog(ctx.toolCatalog, baseline);
      } else {
        if (config.mode === 'deferred' && !fallbackWarned) {
          fallbackWarned = true;
          api.logger.warn(
            "mode 'deferred' needs a model whose provider loads deferred tools (anthropic); this model gets the on-demand tools once enabled instead.",
          );
        }
        ctx.toolCatalog = filtered;
      }
      return ctx.next();
    },
    { priority: EXPOSURE_STEP_PRIORITY },
  );
  if (config.mode === 'deferred') {
    api.pipeline.register(
      'toolCall',
      deferredGuard({
        active: () => deferring,
        alwaysExposed: (name) => baseline.has(name),
        enabled: (name) => state.active(now()).has(name),
        discovered: () => discovered,
      }),
      { priority: REPEAT_GUARD_PRIORITY + 1 },
    );
  }
  api.pipeline.register('toolCall', enableRequestsMiddleware(api, exposure));
  // A repeated call is answered before other toolCall middleware (or approval) runs.
  const guard = repeatGuard(config.repeatLimit);
  api.pipeline.register('turn', guard.turn);
  api.pipeline.register('toolCall', guard.toolCall, { priority: REPEAT_GUARD_PRIORITY });
  // "세션 종료 시 자동 리셋": a new conversation starts from the baseline again.
  api.onConversationReset(() => exposure.forget());
}
