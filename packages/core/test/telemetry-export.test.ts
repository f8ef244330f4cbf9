// Live OpenTelemetry export (docs/telemetry.md): real agent processes of a two-agent swarm send their spans over
// OTLP/HTTP, with the official exporter, to a receiver this test runs on 127.0.0.1.
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import type { SpanRecord } from '@goondan/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { redactSecrets } from '../src/permissions/redact-secrets.ts';
import { SHUTDOWN_TIMEOUT_MS, startOtlpTelemetry } from '../src/telemetry/otlp-telemetry.ts';
import { telemetryConfig } from '../src/telemetry/telemetry-config.ts';
import { isAlive, removeTempDirs, type StartedSwarm, startSwarm, waitFor } from './swarm-fixture.ts';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue & { arrayValue?: { values: AnyValue[] } } };

function plain(value: KeyValue['value']): unknown {
  if (value.arrayValue) return value.arrayValue.values.map((item) => plain(item));
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

const record = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

/** An OTLP/HTTP traces endpoint (JSON encoding, which @opentelemetry/exporter-trace-otlp-http sends). */
function startReceiver() {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      if (request.method !== 'POST' || new URL(request.url).pathname !== '/v1/traces')
        return new Response('not found', { status: 404 });
      contentTypes.push(request.headers.get('content-type') ?? '');
      const body = (await request.json()) as {
        resourceSpans: {
          resource: { attributes: KeyValue[] };
          scopeSpans: { spans: (ReceivedSpan & { attributes: KeyValue[] })[] }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans) {
        const resource = record(resourceSpans.resource.attributes);
        for (const scope of resourceSpans.scopeSpans)
          for (const span of scope.spans) spans.push({ ...span, attributes: record(span.attributes), resource });
      }
      return Response.json({});
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, spans, contentTypes, stop: () => server.stop(true) };
}

let swarm: StartedSwarm | undefined;
let receiver: ReturnType<typeof startReceiver> | undefined;

afterEach(async () => {
  if (swarm) {
    const { orchestrator, pids } = swarm;
    swarm = undefined;
    await orchestrator.shutdown({ gracePeriodMs: 2000 });
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  }
  receiver?.stop();
  receiver = undefined;
});
afterAll(removeTempDirs);

describe('OpenTelemetry export', () => {
  test('a two-agent swarm exports invoke_agent, chat and execute_tool spans; the callee nests under the call', async () => {
    receiver = startReceiver();
    const secret = 'Zq8-planted-secret-771';
    swarm = await startSwarm(
      {
        scripts: {
          coordinator: [
            { toolCalls: [{ name: 'agents__request', args: { target: 'worker', input: 'What is 6 x 7?' } }] },
            { text: 'The worker said 42.' },
          ],
          worker: [{ toolCalls: [{ name: 'probe__mark', args: { text: `password=${secret}` } }] }, { text: '42' }],
        },
      },
      {
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
          OTEL_BSP_SCHEDULE_DELAY: '50',
        },
      },
    );
    const result = await swarm.orchestrator.request({ input: 'Ask the worker.' });
    expect(result.status).toBe('completed');
    // Closing the instances flushes what is still queued.
    await swarm.orchestrator.shutdown({ gracePeriodMs: 5000 });
    const { spans } = receiver;
    await waitFor(() => spans.filter((span) => span.name.startsWith('invoke_agent')).length === 2, 10_000, 'turns');
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);

    const byName = (name: string) => spans.filter((span) => span.name === name);
    const [coordinatorTurn] = byName('invoke_agent coordinator');
    const [workerTurn] = byName('invoke_agent worker');
    const [request] = byName('execute_tool agents__request');
    const [mark] = byName('execute_tool probe__mark');
    expect(coordinatorTurn && workerTurn && request && mark).toBeTruthy();
    // One trace across both processes; the callee's turn hangs under the caller's tool call.
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([result.traceId]));
    expect(coordinatorTurn!.parentSpanId ?? '').toBe('');
    expect(workerTurn!.parentSpanId).toBe(request!.spanId);
    expect(workerTurn!.resource).toMatchObject({ 'goondan.agent': 'worker', 'goondan.instance': 'default' });

    expect(coordinatorTurn!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'coordinator',
      'gen_ai.conversation.id': 'coordinator/default',
      'goondan.agent': 'coordinator',
    });
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(4);
    for (const chat of chats) {
      expect(chat.kind).toBe(3); // CLIENT
      expect(chat.name).toBe(`chat ${chat.attributes['gen_ai.request.model']}`);
      expect(chat.attributes['gen_ai.provider.name']).toBe('scripted');
      expect(typeof chat.attributes['gen_ai.usage.input_tokens']).toBe('number');
    }
    expect(request!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'agents__request',
      'gen_ai.tool.type': 'function',
    });
    expect(typeof request!.attributes['gen_ai.tool.call.id']).toBe('string');
    expect(request!.status.code).toBe(1);

    // Content was opted in: present, and redacted the way the audit log is.
    expect(String(mark!.attributes['gen_ai.tool.call.arguments'])).toContain('[REDACTED]');
    expect(String(workerTurn!.attributes['gen_ai.input.messages'])).toContain('What is 6 x 7?');
    expect(String(coordinatorTurn!.attributes['gen_ai.output.messages'])).toContain('The worker said 42.');
    expect(JSON.stringify(spans)).not.toContain(secret);
  });

  test('without the opt-in no message content leaves; a running span is not exported', async () => {
    receiver = startReceiver();
    const config = telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_BSP_SCHEDULE_DELAY: '0' });
    expect(config).toMatchObject({ url: `${receiver.url}/v1/traces`, captureContent: false });
    const telemetry = await startOtlpTelemetry({ config: config!, redact: (value) => value });
    const span: SpanRecord = {
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      parentSpanId: null,
      kind: 'tool',
      name: 'tool calc__add',
      startedAt: Date.now(),
      endedAt: null,
      status: 'running',
      attributes: { toolName: 'calc__add', errorCode: 'E_TOOL_TIMEOUT', errorMessage: 'slow' },
    };
    telemetry.onSpan(span, { input: { a: 1 } });
    telemetry.onSpan({ ...span, endedAt: span.startedAt + 5, status: 'error' }, { input: { a: 1 }, output: 2 });
    await telemetry.shutdown();
    expect(receiver.spans).toHaveLength(1);
    const [sent] = receiver.spans;
    expect(sent!.name).toBe('execute_tool calc__add');
    expect(sent!.status).toMatchObject({ code: 2, message: 'slow' });
    expect(sent!.attributes['error.type']).toBe('E_TOOL_TIMEOUT');
    expect(Object.keys(sent!.attributes).filter((key) => key.includes('arguments') || key.includes('result'))).toEqual(
      [],
    );
    expect(telemetryConfig({})).toBeNull();
    expect(telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });
});

describe('OpenTelemetry export against a hostile collector', () => {
  const endedSpan = (attributes: SpanRecord['attributes'], name = 'tool leak__go'): SpanRecord => ({
    traceId: 'c'.repeat(32),
    spanId: 'd'.repeat(16),
    parentSpanId: null,
    kind: 'tool',
    name,
    startedAt: Date.now(),
    endedAt: Date.now() + 1,
    status: 'error',
    attributes,
  });

  test('secrets in an error message, stack or name are redacted before they leave, secret values too', async () => {
    const sent: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        sent.push(...spans);
        done({ code: 0 });
      },
      shutdown: async () => {},
    };
    const config = telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_BSP_SCHEDULE_DELAY: '0' });
    const plainSecret = 'plain-env-secret-90210';
    const telemetry = await startOtlpTelemetry({
      config: config!,
      exporter,
      redact: (value) => redactSecrets(value, { secretValues: [plainSecret] }),
    });
    const token = 'sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const message = `upstream refused: Authorization: Bearer ${token} (key ${plainSecret})`;
    telemetry.onSpan(
      endedSpan({ toolName: 'leak__go', errorCode: 'E_TOOL', errorMessage: message, errorStack: `Error: ${message}` }),
    );
    await telemetry.shutdown();
    expect(sent).toHaveLength(1);
    const text = JSON.stringify({ name: sent[0]!.name, status: sent[0]!.status, attributes: sent[0]!.attributes });
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(token);
    expect(text).not.toContain(plainSecret);
  });

  test('a collector that never answers does not hold the close of an instance', async () => {
    let requests = 0;
    const { promise: asked, resolve: onAsked } = Promise.withResolvers<void>();
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => {
        requests += 1;
        onAsked();
        return new Promise<Response>(() => {});
      },
    });
    try {
      const warnings: string[] = [];
      const config = telemetryConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://user:pw-secret@127.0.0.1:${server.port}`,
        OTEL_BSP_SCHEDULE_DELAY: '0',
      });
      const telemetry = await startOtlpTelemetry({
        config: config!,
        redact: (value) => value,
        logger: { warn: (text: string) => warnings.push(text) },
      });
      telemetry.onSpan(endedSpan({ toolName: 'leak__go' }));
      await asked;
      const started = performance.now();
      await telemetry.shutdown();
      expect(performance.now() - started).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 1500);
      expect(requests).toBeGreaterThan(0);
      expect(warnings.join('\n')).toContain('not sent');
      expect(warnings.join('\n')).not.toContain('pw-secret');
    } finally {
      server.stop(true);
    }
  });
});
