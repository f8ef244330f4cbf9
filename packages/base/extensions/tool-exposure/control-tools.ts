import type { ExtensionApi } from '@goondan/core';
import type { Exposure } from './exposure.ts';
import { MAX_TTL_MINUTES, MIN_TTL_MINUTES } from './exposure-config.ts';

const noParameters = { type: 'object' as const, properties: {}, additionalProperties: false };

/**
 * The registry-control tools of builtin-tools-assistant.md "레지스트리 제어 도구", renamed by spec README decision 3
 * (`tools.list` → `tools__list`, …). They are always exposed.
 */
export function registerControlTools(api: ExtensionApi, exposure: Exposure): void {
  api.tools.register(
    {
      name: 'tools__list',
      description:
        'List the tools that exist: always exposed (control and baseline), groups, enabled on demand (with expiry) ' +
        'and on-demand tools you can enable, each with a one-line description.',
      parameters: noParameters,
    },
    () => exposure.list(),
    { category: 'safe' },
  );
  api.tools.register(
    {
      name: 'tools__enable',
      description:
        'Enable on-demand tools by tool name (resource__export) or group name (group:NAME or NAME). They are in your ' +
        'tool list from your next step and stay enabled for the TTL (tools__enable_ttl). Unknown names enable nothing.',
      parameters: {
        type: 'object',
        properties: {
          names: {
            type: 'array',
            items: { type: 'string', minLength: 1, maxLength: 128 },
            minItems: 1,
            maxItems: 100,
            description: 'Tool names or group names to enable.',
          },
        },
        required: ['names'],
        additionalProperties: false,
      },
    },
    (_ctx, input: { names: string[] }) => exposure.enable(input.names, { strict: true }),
    { category: 'safe' },
  );
  api.tools.register(
    {
      name: 'tools__enable_ttl',
      description:
        'Set how many minutes enabled tools stay enabled in this session; tools enabled now are renewed to expire ' +
        'that many minutes from now.',
      parameters: {
        type: 'object',
        properties: {
          minutes: {
            type: 'integer',
            minimum: MIN_TTL_MINUTES,
            maximum: MAX_TTL_MINUTES,
            description: `Minutes, ${MIN_TTL_MINUTES} to ${MAX_TTL_MINUTES}.`,
          },
        },
        required: ['minutes'],
        additionalProperties: false,
      },
    },
    (_ctx, input: { minutes: number }) => exposure.setTtl(input.minutes),
    { category: 'safe' },
  );
  api.tools.register(
    {
      name: 'tools__reset',
      description: 'Disable every tool enabled on demand and go back to the baseline tools and the default TTL.',
      parameters: noParameters,
    },
    () => exposure.reset(),
    { category: 'safe' },
  );
}
