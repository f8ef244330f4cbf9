import type { SpanRecord } from '../store/trace-store.ts';
import type { JsonValue } from '../types.ts';

/**
 * What a span carried when message content is captured (opt-in): the model's instructions, input and output
 * messages, a tool call's arguments and result, a turn's input and reply. Never stored, only exported.
 */
export interface SpanContent {
  system?: string;
  input?: JsonValue;
  output?: JsonValue;
}

/** Where an agent instance's spans go besides its database (an OpenTelemetry exporter). */
export interface SpanTelemetry {
  /** True when message content is exported too (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
  readonly captureContent: boolean;
  /** Told about every span as it is recorded; only ended ones are exported. Never throws. */
  onSpan(span: SpanRecord, content?: SpanContent): void;
  /** Sends what is queued and stops. */
  shutdown(): Promise<void>;
}
