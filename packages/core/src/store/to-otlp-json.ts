import { genAiSpan } from '../telemetry/gen-ai-span.ts';
import type { JsonValue } from '../types.ts';
import type { SpanRecord, TraceRecord } from './trace-store.ts';

/** OTLP/JSON AnyValue (int64 travels as a decimal string, as the protobuf JSON mapping requires). */
export type OtlpAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: OtlpAnyValue[] } }
  | { kvlistValue: { values: OtlpKeyValue[] } }
  | Record<string, never>;

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 INTERNAL, 3 CLIENT (model calls leave the process). */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  /** 0 UNSET (running, cancelled), 1 OK, 2 ERROR. */
  status: { code: 0 | 1 | 2; message?: string };
}

export interface OtlpExport {
  resourceSpans: {
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: { scope: { name: string; version?: string }; spans: OtlpSpan[] }[];
  }[];
}

export interface ToOtlpJsonOptions {
  /** `service.name` of the resource. Default `goondan`. */
  serviceName?: string;
  /** More resource attributes, e.g. `{ 'goondan.agent': 'assistant', 'goondan.instance': 'default' }`. */
  resourceAttributes?: Record<string, JsonValue>;
}

function anyValue(value: JsonValue): OtlpAnyValue {
  if (value === null) return {};
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { intValue: String(value) };
    return Number.isFinite(value) ? { doubleValue: value } : { stringValue: String(value) };
  }
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  return { kvlistValue: { values: keyValues(value) } };
}

function keyValues(record: Record<string, JsonValue>): OtlpKeyValue[] {
  return Object.entries(record).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/** Epoch milliseconds (fractions kept to the microsecond) as a decimal string of nanoseconds. */
function unixNano(epochMs: number): string {
  return (BigInt(Math.round(epochMs * 1000)) * 1000n).toString();
}

function statusOf(span: SpanRecord): OtlpSpan['status'] {
  if (span.status === 'ok') return { code: 1 };
  if (span.status !== 'error') return { code: 0 };
  // The agent runtime records errorMessage / errorCode; `error.*` is the OpenTelemetry-style spelling.
  const { attributes } = span;
  const message =
    attributes['error.message'] ?? attributes.errorMessage ?? attributes['error.code'] ?? attributes.errorCode;
  return typeof message === 'string' ? { code: 2, message } : { code: 2 };
}

function otlpSpan(span: SpanRecord): OtlpSpan {
  // The same names and attributes as the live export (docs/telemetry.md): GenAI conventions, goondan.* beside.
  const view = genAiSpan(span);
  const out: OtlpSpan = {
    traceId: span.traceId,
    spanId: span.spanId,
    name: view.name,
    kind: view.kind === 'client' ? 3 : 1,
    startTimeUnixNano: unixNano(span.startedAt),
    // A running span has no end yet; OTLP requires one, so it ends where it starts (status stays UNSET).
    endTimeUnixNano: unixNano(span.endedAt ?? span.startedAt),
    attributes: keyValues(view.attributes),
    status: statusOf(span),
  };
  if (span.parentSpanId !== null) out.parentSpanId = span.parentSpanId;
  return out;
}

/**
 * Traces in the OpenTelemetry OTLP/JSON shape (`POST /v1/traces` of a collector, or a file for Jaeger and the
 * like). Ids are sent as hex, as the OTLP/JSON mapping requires. Names and attributes follow the GenAI semantic
 * conventions (genAiSpan): stored attributes ride along as `goondan.*`, with `goondan.span.kind` and
 * `goondan.span.status`.
 *
 * @example
 * await Bun.write('traces.json', JSON.stringify(toOtlpJson(traceStore.recentTraces(10))));
 */
export function toOtlpJson(traces: readonly TraceRecord[], options: ToOtlpJsonOptions = {}): OtlpExport {
  const resourceAttributes = { 'service.name': options.serviceName ?? 'goondan', ...options.resourceAttributes };
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues(resourceAttributes) },
        scopeSpans: [{ scope: { name: '@goondan/core' }, spans: traces.flatMap((trace) => trace.spans.map(otlpSpan)) }],
      },
    ],
  };
}
