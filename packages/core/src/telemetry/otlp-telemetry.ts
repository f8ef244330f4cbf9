import type { Attributes, AttributeValue, HrTime } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { SpanRecord } from '../store/trace-store.ts';
import type { JsonValue } from '../types.ts';
import { contentAttributes } from './content-attributes.ts';
import { genAiSpan } from './gen-ai-span.ts';
import type { SpanContent, SpanTelemetry } from './span-telemetry.ts';
import type { TelemetryConfig } from './telemetry-config.ts';

/** OpenTelemetry SpanKind / SpanStatusCode values (numbers, so @opentelemetry/api need not load for its enums). */
const SPAN_KIND = { internal: 0, client: 2 } as const;
const STATUS = { unset: 0, ok: 1, error: 2 } as const;

function hrTime(epochMs: number): HrTime {
  const seconds = Math.floor(epochMs / 1000);
  return [seconds, Math.round((epochMs - seconds * 1000) * 1e6)];
}

/** Attribute values OpenTelemetry takes: primitives and arrays of one primitive type; anything else as JSON text. */
function attributeValue(value: JsonValue): AttributeValue | undefined {
  if (value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  if (Array.isArray(value) && value.every((item) => typeof item === 'number')) return value as number[];
  return JSON.stringify(value);
}

/** The endpoint as a warning shows it: without a password or query (either may carry a key). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(the configured endpoint)';
  }
}

export interface OtlpTelemetryOptions {
  config: TelemetryConfig;
  /** Resource attributes besides service.name (agent, instance). */
  resource?: Record<string, string>;
  /** Applied to every attribute, the name and the content before they leave (the instance's secret redaction). */
  redact: (value: JsonValue) => JsonValue;
  logger?: Pick<Console, 'warn'>;
  /** Tests: an exporter instead of OTLP/HTTP. */
  exporter?: SpanExporter;
  /** Longest wait for the collector when the instance closes (default SHUTDOWN_TIMEOUT_MS); what is unsent is lost. */
  shutdownTimeoutMs?: number;
}

/** How long closing an instance waits for the last batch: a collector that is down never holds a process's exit. */
export const SHUTDOWN_TIMEOUT_MS = 2000;

/** 'done' when `work` settles, or 'timeout' once `ms` pass first (the timer does not keep the process alive). */
function within(work: Promise<void>, ms: number): Promise<'done' | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref?.();
  });
  return Promise.race([work.then(() => 'done' as const), late]).finally(() => clearTimeout(timer));
}

/**
 * Live export of an agent instance's spans over OTLP/HTTP (JSON) with the official OpenTelemetry exporter and
 * batch processor. Loads the OpenTelemetry packages when called, so a process without an endpoint never does.
 *
 * @example
 * const config = telemetryConfig(process.env);
 * const telemetry = config ? await startOtlpTelemetry({ config, redact: (v) => redactSecrets(v) }) : undefined;
 */
export async function startOtlpTelemetry(options: OtlpTelemetryOptions): Promise<SpanTelemetry> {
  const [{ BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const { config } = options;
  const resource = resourceFromAttributes({ 'service.name': config.serviceName, ...options.resource });
  const inner =
    options.exporter ??
    new OTLPTraceExporter({ url: config.url, headers: config.headers, timeoutMillis: config.exportTimeoutMs });
  const where = shownUrl(config.url);
  let warned = false;
  // The processor drops failed batches quietly; the first failure is told, once, so a wrong endpoint is noticed.
  const exporter: SpanExporter = {
    export: (spans, done) =>
      inner.export(spans, (result) => {
        if (result.code !== 0 && !warned) {
          warned = true;
          options.logger?.warn(
            `telemetry: spans could not be exported to ${where} (${result.error?.message ?? 'failed'}); later failures are not reported`,
          );
        }
        done(result);
      }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
  const processor = new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.batchDelayMs });
  const scope = { name: '@goondan/core' };
  const toReadable = (raw: SpanRecord, content?: SpanContent): ReadableSpan => {
    // The database keeps spans redacted; what leaves the machine is redacted the same way (an error message or
    // stack may quote a token), with the instance's secret values too.
    const span: SpanRecord = {
      ...raw,
      name: String(options.redact(raw.name)),
      attributes: options.redact(raw.attributes) as Record<string, JsonValue>,
    };
    const view = genAiSpan(span);
    const attributes: Attributes = {};
    for (const [key, value] of Object.entries(view.attributes)) {
      const converted = attributeValue(value);
      if (converted !== undefined) attributes[key] = converted;
    }
    if (content && config.captureContent) Object.assign(attributes, contentAttributes(span, content, options.redact));
    const endedAt = span.endedAt ?? span.startedAt;
    const message = view.attributes['goondan.errorMessage'];
    return {
      name: view.name,
      kind: SPAN_KIND[view.kind],
      spanContext: () => ({ traceId: span.traceId, spanId: span.spanId, traceFlags: 1 }),
      ...(span.parentSpanId
        ? { parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: 1 } }
        : {}),
      startTime: hrTime(span.startedAt),
      endTime: hrTime(endedAt),
      duration: hrTime(endedAt - span.startedAt),
      status:
        span.status === 'ok'
          ? { code: STATUS.ok }
          : span.status === 'error'
            ? { code: STATUS.error, ...(typeof message === 'string' ? { message } : {}) }
            : { code: STATUS.unset },
      attributes,
      links: [],
      events: [],
      ended: true,
      resource,
      instrumentationScope: scope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  };
  let stopped = false;
  return {
    captureContent: config.captureContent,
    onSpan(span, content) {
      // A span is recorded when it starts and again when it ends: only the ended one is exported.
      if (stopped || span.status === 'running') return;
      try {
        processor.onEnd(toReadable(span, content));
      } catch (thrown) {
        options.logger?.warn(`telemetry: ${(thrown as Error).message}`);
      }
    },
    async shutdown() {
      if (stopped) return;
      stopped = true;
      const flushed = processor.shutdown().catch((thrown: unknown) => {
        if (!warned) options.logger?.warn(`telemetry: ${(thrown as Error).message}`);
      });
      const waitMs = options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS;
      if ((await within(flushed, waitMs)) === 'timeout') {
        options.logger?.warn(`telemetry: the last spans were not sent to ${where} within ${waitMs} ms`);
      }
    },
  };
}
