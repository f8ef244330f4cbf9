/**
 * The web console's first render of a huge trace (issue 17), measured in headless Chromium (/usr/bin/chromium via
 * playwright-core): one trace of 10,000 spans (a turn, steps of a model call and 48 tool calls) stored in an
 * instance database, served by the console of `gdn trace --serve` (in a process of its own, as in use: the browser's
 * driver in this one would hold up the server otherwise), and loaded from navigation to
 * the first waterfall row on screen. The first load includes bundling the page's script (Bun.build, once per
 * process); the next loads do not. Also: the trace's outline from the server alone (its size too), the keyboard's End
 * key (focus moves to span 10,000 through the virtualised list), and opening a span (its details fetched then).
 * Usage: bun bench/console.ts [--json] [--spans N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths, newSpanId, newTraceId, openInstanceDatabase, type SpanRecord, TraceStore } from '@goondan/core';
import { chromium } from 'playwright-core';
import { type BenchRow, median, report } from './harness.ts';

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

const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-console-'));
// A trace of its own for every load: nothing the server or the page kept from a load helps the next.
const traceIds = Array.from({ length: rounds + 1 }, () => newTraceId());
const db = openInstanceDatabase(instancePaths({ rootDir: dir, agentName: 'bench', instanceKey: 'big' }).databaseFile);
const store = new TraceStore(db);
for (const traceId of traceIds) store.recordSpans(hugeTrace(traceId));
db.close();
const serverModule = join(import.meta.dir, '..', 'packages', 'cli', 'src', 'console', 'console-server.ts');
const serverProcess = Bun.spawn(
  [
    process.execPath,
    '--eval',
    `const { startConsoleServer } = await import(${JSON.stringify(serverModule)});
     const server = startConsoleServer({ bundle: { rootDir: ${JSON.stringify(dir)}, resources: new Map() }, hostname: '127.0.0.1', port: 0 });
     console.log(server.url);
     // Ends with this bench: its stdin closes when the bench exits, however it exits (a failed browser launch, a
     // kill), so an orphaned server never holds the pipe of whoever reads the bench's output.
     for await (const _ of Bun.stdin.stream()) {}
     process.exit(0);`,
  ],
  { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' },
);
const firstLine = async (stream: ReadableStream<Uint8Array>) => {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes('\n')) return text.slice(0, text.indexOf('\n')).trim();
  }
  throw new Error('the console server exited before it listened');
};
const server = { url: await firstLine(serverProcess.stdout) };
const browser = await chromium
  .launch({
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
  })
  .catch(async (error: unknown) => {
    serverProcess.kill();
    await serverProcess.exited;
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
try {
  const api: number[] = [];
  let bytes = 0;
  for (const traceId of traceIds.slice(1)) {
    const started = performance.now();
    const text = await (await fetch(`${server.url}/console/api/traces/${traceId}`)).text();
    const body = JSON.parse(text) as { spans: number | unknown[] };
    // An outline counts its spans (this version); the whole trace listed them (before).
    const spans = typeof body.spans === 'number' ? body.spans : body.spans.length;
    if (spans !== count) throw new Error(`expected ${count} spans, got ${spans}`);
    api.push(performance.now() - started);
    bytes = text.length;
  }
  const loads: number[] = [];
  const ends: number[] = [];
  const opens: number[] = [];
  const empty: number[] = [];
  const pageFetches: number[] = [];
  const pageDraws: number[] = [];
  for (let round = 0; round <= rounds; round += 1) {
    // The page alone: navigation → a view with no data drawn (the schedules of a bundle without any).
    const blank = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const begun = performance.now();
    await blank.goto(`${server.url}/console#/schedules`);
    await blank.getByText('No schedules.').waitFor();
    if (round > 0) empty.push(performance.now() - begun);
    await blank.close();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const started = performance.now();
    await page.goto(`${server.url}/console#/trace/${traceIds[round]}`);
    await page.locator('[role=treeitem]').first().waitFor();
    loads.push(performance.now() - started);
    // Where the time went, by the page's clock: the trace's request, then the page's own work to the first row.
    const [fetchMs, drawMs] = await page.evaluate((id) => {
      const entry = performance
        .getEntriesByType('resource')
        .find((e) => e.name.endsWith(`/console/api/traces/${id}`)) as PerformanceResourceTiming;
      const drawn = performance.getEntriesByName('gdn:first-row')[0]?.startTime ?? Number.NaN;
      return [entry.responseEnd - entry.startTime, drawn - entry.responseEnd];
    }, traceIds[round]!);
    if (round > 0) {
      pageFetches.push(fetchMs);
      pageDraws.push(drawMs);
    }
    await page.getByRole('tree').focus();
    const pressed = performance.now();
    await page.keyboard.press('End');
    await page.locator(`[role=treeitem][aria-posinset="${count}"]:focus`).waitFor();
    ends.push(performance.now() - pressed);
    // Enter on the focused row (the last tool call) opens it; a click could land on a row that scrolls in.
    const clicked = performance.now();
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Span details' }).getByText('Arguments (redacted').waitFor();
    opens.push(performance.now() - clicked);
    await page.close();
  }
  const [cold, ...warm] = loads;
  const result = {
    spans: count,
    firstLoadWithBuildMs: Math.round(cold!),
    firstRenderMedianMs: Math.round(median(warm)),
    firstRenderMaxMs: Math.round(Math.max(...warm)),
    emptyViewMedianMs: Math.round(median(empty)),
    pageFetchMedianMs: Math.round(median(pageFetches)),
    pageDrawMedianMs: Math.round(median(pageDraws)),
    traceJsonMedianMs: Math.round(median(api)),
    traceJsonKB: Math.round(bytes / 1024),
    endKeyMedianMs: Math.round(median(ends)),
    openSpanMedianMs: Math.round(median(opens)),
  };
  const rows: BenchRow[] = [
    {
      figure: `console: navigation → first waterfall row, ${count} spans`,
      unit: 'ms',
      ours: result.firstRenderMedianMs,
      oursP99: result.firstRenderMaxMs,
      goal: '≤ 1000 ms',
      met: result.firstRenderMedianMs <= 1000,
      note: 'headless Chromium, script already built',
    },
    {
      figure: 'console: navigation → a view without data (the page alone)',
      unit: 'ms',
      ours: result.emptyViewMedianMs,
    },
    { figure: "console: the trace's request, in the page", unit: 'ms', ours: result.pageFetchMedianMs },
    { figure: 'console: answer → first row drawn, in the page', unit: 'ms', ours: result.pageDrawMedianMs },
    { figure: 'console: first load with the script build', unit: 'ms', ours: result.firstLoadWithBuildMs },
    { figure: `console: trace outline from the server, ${count} spans`, unit: 'ms', ours: result.traceJsonMedianMs },
    { figure: `console: trace outline size, ${count} spans`, unit: 'MB', ours: bytes / 1024 / 1024 },
    { figure: `console: End key → span ${count} focused`, unit: 'ms', ours: result.endKeyMedianMs },
    { figure: 'console: Enter on a tool call → its details', unit: 'ms', ours: result.openSpanMedianMs },
  ];
  report(rows, () => {
    console.log(`console, one trace of ${count} spans, headless Chromium, ${rounds} loads after a first one:`);
    console.log(`  first load (script built by Bun.build):  ${result.firstLoadWithBuildMs} ms`);
    console.log(
      `  navigation → first waterfall row:        median ${result.firstRenderMedianMs} ms, max ${result.firstRenderMaxMs} ms`,
    );
    console.log(`  navigation → a view without data:        median ${result.emptyViewMedianMs} ms`);
    console.log(`  the trace's request, in the page:        median ${result.pageFetchMedianMs} ms`);
    console.log(`  its answer → first row drawn:            median ${result.pageDrawMedianMs} ms`);
    console.log(
      `  GET /console/api/traces/ID alone:        median ${result.traceJsonMedianMs} ms (${result.traceJsonKB} KB)`,
    );
    console.log(`  End key → span ${count} focused:          median ${result.endKeyMedianMs} ms`);
    console.log(`  Enter on a tool call → its details:      median ${result.openSpanMedianMs} ms`);
  });
} finally {
  await browser.close();
  serverProcess.kill();
  await serverProcess.exited;
  rmSync(dir, { recursive: true, force: true });
}
