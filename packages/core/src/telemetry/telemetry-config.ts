import { GoondanError } from '../errors/goondan-error.ts';

/** How live export is set up, read from the standard OpenTelemetry environment variables. */
export interface TelemetryConfig {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  captureContent: boolean;
  /** How long spans wait to be sent in one batch (OTEL_BSP_SCHEDULE_DELAY, default 1000 ms). */
  batchDelayMs: number;
  /** How long one export may take, retries included (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, …_TIMEOUT; default 5000 ms). */
  exportTimeoutMs: number;
}

const configError = (message: string) => new GoondanError('E_TELEMETRY_CONFIG', message);

/** HTTP header names: RFC 9110 tokens. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `k1=v1,k2=v2` (values URL-encoded), as OTEL_EXPORTER_OTLP_HEADERS gives them. A malformed pair is an error (the
 * SDK skips it, and the backend then refuses every batch for a missing key); the message never shows a value.
 */
function parseHeaders(variable: string, text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [index, pair] of (text ?? '').split(',').entries()) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    let name = '';
    let value = '';
    try {
      name = equals > 0 ? decodeURIComponent(pair.slice(0, equals).trim()) : '';
      value = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      name = '';
    }
    if (!headerName.test(name) || /[\r\n\0]/.test(value)) {
      throw configError(`${variable}: pair ${index + 1} is not key=value with a valid header name and value.`);
    }
    headers[name] = value;
  }
  return headers;
}

/** The endpoint as an error shows it: scheme, host and path (a password or query may carry a key). */
function checkedUrl(variable: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw configError(`${variable} is not a URL (expected http://HOST:PORT or https://…).`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw configError(`${variable} must be an http:// or https:// URL, not ${parsed.protocol}// (OTLP/HTTP only).`);
  }
  return url;
}

/** Shorter than the SDK's 5 s: a turn's spans reach a dashboard while one still looks at it. */
export const DEFAULT_BATCH_DELAY_MS = 1000;
/** Shorter than the specification's 10 s: an agent process never waits long on a collector that does not answer. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 5000;

/** A whole number of milliseconds from `min` to 999999999 in `variable`, or `fallback` when it is not set. */
function milliseconds(variable: string, text: string | undefined, fallback: number, min: number): number {
  const trimmed = text?.trim();
  if (!trimmed) return fallback;
  if (!/^\d{1,9}$/.test(trimmed) || Number(trimmed) < min) {
    throw configError(
      `${variable} must be a whole number of milliseconds from ${min} to 999999999, got '${trimmed.slice(0, 40)}'.`,
    );
  }
  return Number(trimmed);
}

const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true';

/**
 * Null unless OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is
 * not `true`, nor OTEL_TRACES_EXPORTER `none`). Reading it costs nothing: the OpenTelemetry packages load only
 * when it is not null. Throws GoondanError E_TELEMETRY_CONFIG for a value that cannot work (a URL that is not
 * http(s), a malformed header pair, a schedule delay that is not a whole number of milliseconds).
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
  const url = signal
    ? checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signal)
    : base
      ? checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', `${base.replace(/\/+$/, '')}/v1/traces`)
      : '';
  if (!url) return null;
  const delay = milliseconds('OTEL_BSP_SCHEDULE_DELAY', env.OTEL_BSP_SCHEDULE_DELAY, DEFAULT_BATCH_DELAY_MS, 0);
  const timeoutVariable = env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT'
    : 'OTEL_EXPORTER_OTLP_TIMEOUT';
  const exportTimeoutMs = milliseconds(timeoutVariable, env[timeoutVariable], DEFAULT_EXPORT_TIMEOUT_MS, 1);
  return {
    url,
    headers: {
      ...parseHeaders('OTEL_EXPORTER_OTLP_HEADERS', env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseHeaders('OTEL_EXPORTER_OTLP_TRACES_HEADERS', env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || defaults.serviceName || 'goondan',
    captureContent: isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
    batchDelayMs: delay,
    exportTimeoutMs,
  };
}
