import { helpUrlFor } from '../errors/error-codes.ts';
import type { GoondanError } from '../errors/goondan-error.ts';
import type { JsonValue } from '../types.ts';
import type { SpanTelemetry } from './span-telemetry.ts';
import { telemetryConfig } from './telemetry-config.ts';

/**
 * The live span export of one agent instance, or undefined when no OTLP endpoint is set in `env`. The exporter
 * module (and with it the OpenTelemetry packages) is imported only when there is one.
 */
export async function openSpanTelemetry(options: {
  env: Record<string, string | undefined>;
  agent: string;
  instanceKey: string;
  redact: (value: JsonValue) => JsonValue;
  logger?: Pick<Console, 'warn'>;
}): Promise<SpanTelemetry | undefined> {
  let config: ReturnType<typeof telemetryConfig>;
  try {
    config = telemetryConfig(options.env);
  } catch (thrown) {
    // A setting that cannot work is told at start, with its code, not at the first export; the agent still runs.
    const { code, message } = thrown as GoondanError;
    options.logger?.warn(`telemetry: export disabled: ${code}: ${message} (${helpUrlFor(code)})`);
    return undefined;
  }
  if (!config) return undefined;
  try {
    const { startOtlpTelemetry } = await import('./otlp-telemetry.ts');
    return await startOtlpTelemetry({
      config,
      resource: { 'goondan.agent': options.agent, 'goondan.instance': options.instanceKey },
      redact: options.redact,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  } catch (thrown) {
    // Telemetry is an observer: it never keeps an agent from running.
    options.logger?.warn(`telemetry: export disabled (${(thrown as Error).message})`);
    return undefined;
  }
}
