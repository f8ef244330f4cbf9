import { describe, expect, test } from 'bun:test';
import { GoondanError } from '../errors/goondan-error.ts';
import { openSpanTelemetry } from './open-span-telemetry.ts';
import { telemetryConfig } from './telemetry-config.ts';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

function codeOf(env: Record<string, string>): string | undefined {
  try {
    telemetryConfig(env);
    return undefined;
  } catch (thrown) {
    return thrown instanceof GoondanError ? thrown.code : 'not a GoondanError';
  }
}

describe('telemetryConfig', () => {
  test('good values are read: headers URL-decoded, the delay in ms', () => {
    const config = telemetryConfig({
      ...endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team=ops,',
      OTEL_BSP_SCHEDULE_DELAY: '250',
    });
    expect(config).toMatchObject({
      url: 'http://127.0.0.1:4318/v1/traces',
      headers: { authorization: 'Bearer abc', 'x-team': 'ops' },
      batchDelayMs: 250,
    });
    expect(telemetryConfig(endpoint)?.batchDelayMs).toBe(1000);
  });

  test('the export timeout: 5000 ms unless OTEL_EXPORTER_OTLP_TIMEOUT says, the traces variable first', () => {
    expect(telemetryConfig(endpoint)?.exportTimeoutMs).toBe(5000);
    expect(telemetryConfig({ ...endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '1500' })?.exportTimeoutMs).toBe(1500);
    const both = { ...endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '1500', OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '300' };
    expect(telemetryConfig(both)?.exportTimeoutMs).toBe(300);
    expect(() => telemetryConfig({ ...endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '0' })).toThrow(
      /OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds from 1/,
    );
  });

  test.each([
    ['an endpoint that is not a URL', { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }],
    ['an endpoint that is not http(s)', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'file:///etc/passwd' }],
    ['a negative delay', { ...endpoint, OTEL_BSP_SCHEDULE_DELAY: '-5' }],
    ['a delay that is not a number', { ...endpoint, OTEL_BSP_SCHEDULE_DELAY: '1e3' }],
    ['a timeout that is not a number', { ...endpoint, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: 'soon' }],
    ['a header pair without =', { ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'authorization' }],
    ['a header with a bad escape', { ...endpoint, OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-key=%zz' }],
    ['a header value with a newline', { ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'x-key=a%0D%0AHost:%20evil' }],
  ])('%s is E_TELEMETRY_CONFIG at load', (_label, env) => {
    expect(codeOf(env)).toBe('E_TELEMETRY_CONFIG');
  });

  test('the error names the variable, never a header value', () => {
    const env = { ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'ok=1,api-key sk-plain-value-1234' };
    expect(() => telemetryConfig(env)).toThrow(/OTEL_EXPORTER_OTLP_HEADERS: pair 2/);
    try {
      telemetryConfig(env);
    } catch (thrown) {
      expect(String((thrown as Error).message)).not.toContain('sk-plain-value-1234');
    }
  });

  test('openSpanTelemetry tells a bad setting once, with its code, and the agent runs without export', async () => {
    const warnings: string[] = [];
    const telemetry = await openSpanTelemetry({
      env: { ...endpoint, OTEL_BSP_SCHEDULE_DELAY: '-1' },
      agent: 'a',
      instanceKey: 'default',
      redact: (value) => value,
      logger: { warn: (text: string) => warnings.push(text) },
    });
    expect(telemetry).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('E_TELEMETRY_CONFIG');
    expect(warnings[0]).toContain('OTEL_BSP_SCHEDULE_DELAY');
    expect(warnings[0]).toContain('E_TELEMETRY_CONFIG.md');
  });
});
