/** How live export is set up, read from the standard OpenTelemetry environment variables. */
export interface TelemetryConfig {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  captureContent: boolean;
  /** How long spans wait to be sent in one batch (OTEL_BSP_SCHEDULE_DELAY, default 1000 ms). */
  batchDelayMs: number;
}

/** `k1=v1,k2=v2` (values URL-encoded), as OTEL_EXPORTER_OTLP_HEADERS gives them. */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    try {
      headers[decodeURIComponent(pair.slice(0, equals).trim())] = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      // A malformed pair is skipped, as the SDK does.
    }
  }
  return headers;
}

/** Shorter than the SDK's 5 s: a turn's spans reach a dashboard while one still looks at it. */
export const DEFAULT_BATCH_DELAY_MS = 1000;

const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true';

/**
 * Null unless OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is
 * not `true`, nor OTEL_TRACES_EXPORTER `none`). Reading it costs nothing: the OpenTelemetry packages load only
 * when it is not null.
 *
 * @example
 * telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })?.url // 'http://127.0.0.1:4318/v1/traces'
 */
export function telemetryConfig(
  env: Record<string, string | undefined>,
  defaults: { serviceName?: string } = {},
): TelemetryConfig | null {
  if (isTrue(env.OTEL_SDK_DISABLED) || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return null;
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  // The per-signal variable is the whole URL; the general one is a base the signal's path is added to.
  const url = signal || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : '');
  if (!url) return null;
  const delay = env.OTEL_BSP_SCHEDULE_DELAY?.trim() ? Number(env.OTEL_BSP_SCHEDULE_DELAY) : undefined;
  return {
    url,
    headers: {
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || defaults.serviceName || 'goondan',
    captureContent: isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
    batchDelayMs: delay === undefined || !Number.isFinite(delay) || delay < 0 ? DEFAULT_BATCH_DELAY_MS : delay,
  };
}
