/**
 * The web console's first render of a huge trace (issue 17), measured in headless Chromium (/usr/bin/chromium via
 * playwright-core): one trace of 10,000 spans (a turn, steps of a model call and 48 tool calls) stored in an
 * instance database, served by the console of `gdn trace --serve` (in this process), and loaded from navigation to
 * the first waterfall row on screen. The first load includes bundling the page's script (Bun.build, once per
 * process); the next loads do not. Also: the trace's JSON from the server alone, and the keyboard's End key (focus
 * moves to span 10,000 through the virtualised list).
 * Usage: bun bench/console.ts [--json] [--spans N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths, newSpanId, newTraceId, openInstanceDatabase, type SpanRecord, TraceStore } from '@goondan/core';
import { chromium } from 'playwright-core';
import { startConsoleServer } from '../packages/cli/src/console/console-server.ts';

const json = process.argv.includes('--json');
const spansArg = process.argv.indexOf('--spans');
const count = spansArg > 0 ? Number(process.argv[spansArg + 1]) : 10_000;
const rounds = 7;

function hugeTrace(traceId: string): SpanRecord[] {
  const t0 = Date.now() - 60_000;
  const turn: SpanRecord = {
    traceId,
    spanId: newSpanId(),
    parentSpanId: null,
    kind: 'turn',
    name: 'turn bench',
    startedAt: t0,
    endedAt: t0 + 50_000,
    status: 'ok',
    attributes: { agent: 'bench', instance: 'big' },
  };
  const spans = [turn];
  for (let step = 0; spans.length < count; step += 1) {
    const at = t0 + step * 200;
    const stepSpan: SpanRecord = {
      ...turn,
      spanId: newSpanId(),
      parentSpanId: turn.spanId,
      kind: 'step',
      name: `step ${step}`,
      startedAt: at,
      endedAt: at + 150,
      attributes: { stepIndex: step, catalog: ['calc__add', 'calc__boom', 'bash__exec'] },
    };
    spans.push(stepSpan, {
      ...stepSpan,
      spanId: newSpanId(),
      parentSpanId: stepSpan.spanId,
      kind: 'model',
      name: 'model scripted:bench',
      endedAt: at + 50,
      attributes: { inputTokens: 1200, outputTokens: 40, finishReason: 'tool-calls' },
    });
    for (let call = 0; call < 48 && spans.length < count; call += 1) {
      spans.push({
        ...stepSpan,
        spanId: newSpanId(),
        parentSpanId: stepSpan.spanId,
        kind: 'tool',
        name: 'tool calc__add',
        startedAt: at + 50 + call,
        endedAt: at + 100 + call,
        attributes: { toolName: 'calc__add', toolCallId: `call_${step}_${call}`, resultStatus: 'ok' },
      });
    }
  }
  return spans.slice(0, count);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-console-'));
const traceId = newTraceId();
const db = openInstanceDatabase(instancePaths({ rootDir: dir, agentName: 'bench', instanceKey: 'big' }).databaseFile);
new TraceStore(db).recordSpans(hugeTrace(traceId));
db.close();
const server = startConsoleServer({ bundle: { rootDir: dir, resources: new Map() }, hostname: '127.0.0.1', port: 0 });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const api: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    const body = (await (await fetch(`${server.url}/console/api/traces/${traceId}`)).json()) as { spans: unknown[] };
    if (body.spans.length !== count) throw new Error(`expected ${count} spans, got ${body.spans.length}`);
    api.push(performance.now() - started);
  }
  const loads: number[] = [];
  const ends: number[] = [];
  for (let round = 0; round <= rounds; round += 1) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const started = performance.now();
    await page.goto(`${server.url}/console#/trace/${traceId}`);
    await page.locator('[role=treeitem]').first().waitFor();
    loads.push(performance.now() - started);
    await page.getByRole('tree').focus();
    const pressed = performance.now();
    await page.keyboard.press('End');
    await page.locator(`[role=treeitem][aria-posinset="${count}"]:focus`).waitFor();
    ends.push(performance.now() - pressed);
    await page.close();
  }
  const [cold, ...warm] = loads;
  const result = {
    spans: count,
    firstLoadWithBuildMs: Math.round(cold!),
    firstRenderMedianMs: Math.round(median(warm)),
    firstRenderMaxMs: Math.round(Math.max(...warm)),
    traceJsonMedianMs: Math.round(median(api)),
    endKeyMedianMs: Math.round(median(ends)),
  };
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(`console, one trace of ${count} spans, headless Chromium, ${rounds} loads after a first one:`);
    console.log(`  first load (script built by Bun.build):  ${result.firstLoadWithBuildMs} ms`);
    console.log(
      `  navigation → first waterfall row:        median ${result.firstRenderMedianMs} ms, max ${result.firstRenderMaxMs} ms`,
    );
    console.log(`  GET /console/api/traces/ID alone:        median ${result.traceJsonMedianMs} ms`);
    console.log(`  End key → span ${count} focused:          median ${result.endKeyMedianMs} ms`);
  }
} finally {
  await browser.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
