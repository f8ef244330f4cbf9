// The web console in a real browser (headless Chromium from Debian, driven by playwright-core): gdn serve running a
// two-agent swarm, and gdn trace --serve over a bundle's stored state. One browser for the whole file; screenshots
// go to .artifacts/console/ (gitignored).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { instancePaths, newSpanId, newTraceId, openInstanceDatabase, type SpanRecord, TraceStore } from '@goondan/core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startConsoleServer } from '../src/console/console-server.ts';
import { cleanupTempDirs, cliEnv, copyFixture, repoRoot, startGdn } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const artifacts = join(repoRoot, '.artifacts', 'console');
let browser: Browser | undefined;
const running: ReturnType<typeof startGdn>[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install the Debian package chromium (listed in .ci/apt-packages).`);
  }
  await mkdir(artifacts, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
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
});

afterAll(async () => {
  await browser?.close();
  for (const server of running.splice(0)) server.proc.kill('SIGKILL');
  await cleanupTempDirs();
});

/** coordinator asks worker; worker adds twice and fails once in one step, then runs bash (restricted: asks). */
function swarmYaml(): string {
  const documents = [
    {
      kind: 'Swarm',
      metadata: { name: 'team' },
      spec: { entryAgent: 'Agent/coordinator', agents: ['Agent/coordinator', 'Agent/worker'] },
    },
    {
      kind: 'Agent',
      metadata: { name: 'coordinator' },
      spec: { modelConfig: { modelRef: 'Model/c' }, tools: ['Tool/agents'] },
    },
    {
      kind: 'Agent',
      metadata: { name: 'worker' },
      spec: { modelConfig: { modelRef: 'Model/w' }, tools: ['Tool/calc', 'Tool/bash'] },
    },
    {
      kind: 'Model',
      metadata: { name: 'c' },
      spec: {
        provider: 'scripted',
        model: 'c',
        script: [
          { toolCalls: [{ name: 'agents__request', args: { target: 'worker', input: 'add things' } }] },
          { text: 'The worker is done.' },
        ],
      },
    },
    {
      kind: 'Model',
      metadata: { name: 'w' },
      spec: {
        provider: 'scripted',
        model: 'w',
        script: [
          {
            toolCalls: [
              { name: 'calc__add', args: { a: 1, b: 2 } },
              { name: 'calc__add', args: { a: 3, b: 4 } },
              { name: 'calc__boom', args: { reason: 'on purpose' } },
            ],
          },
          { toolCalls: [{ name: 'bash__exec', args: { command: 'echo approved-run' } }] },
          { text: '42' },
        ],
      },
    },
    {
      kind: 'Tool',
      metadata: { name: 'calc' },
      spec: { entry: './tools/calc.ts', exports: [{ name: 'add' }, { name: 'boom' }] },
    },
  ];
  return documents.map((document) => JSON.stringify({ apiVersion: 'goondan.ai/v1', ...document })).join('\n---\n');
}

async function until<T>(
  what: string,
  read: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

async function newPage(): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (error) => {
    throw error;
  });
  return page;
}

/** The little of the page's DOM the checks below read (this file is type-checked without the DOM library). */
interface PageElement {
  labels?: { length: number } | null;
  outerHTML: string;
  textContent: string | null;
  parentElement: PageElement | null;
  getAttribute(name: string): string | null;
}
interface PageWindow {
  document: { title: string; querySelectorAll(selector: string): ArrayLike<PageElement> };
  getComputedStyle(element: PageElement): { color: string; backgroundColor: string };
}

/** Every form control has a label, and text in `selectors` has a contrast of at least 4.5:1 with its background. */
async function accessibilityProblems(page: Page, selectors: string[]): Promise<string[]> {
  return page.evaluate((selectors) => {
    const window = globalThis as unknown as PageWindow;
    const problems: string[] = [];
    for (const control of Array.from(window.document.querySelectorAll('input, select, textarea'))) {
      if (control.labels?.length === 0 && !control.getAttribute('aria-label'))
        problems.push(`unlabelled ${control.outerHTML}`);
    }
    const rgb = (text: string) => (text.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]: number[]) => {
      const channel = (v: number) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r!) + 0.7152 * channel(g!) + 0.0722 * channel(b!);
    };
    const background = (element: PageElement | null): number[] => {
      for (let at = element; at; at = at.parentElement) {
        const color = rgb(window.getComputedStyle(at).backgroundColor);
        if (color.length >= 3 && (color[3] ?? 1) > 0) return color;
      }
      return [255, 255, 255];
    };
    for (const selector of selectors) {
      for (const element of Array.from(window.document.querySelectorAll(selector)).slice(0, 20)) {
        const fg = luminance(rgb(window.getComputedStyle(element).color));
        const bg = luminance(background(element));
        const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
        if (ratio < 4.5)
          problems.push(`${selector}: contrast ${ratio.toFixed(2)} for "${element.textContent?.slice(0, 30)}"`);
      }
    }
    return problems;
  }, selectors);
}

const row = (page: Page, text: string) => page.locator('[role=treeitem]', { hasText: text });

describe('web console', () => {
  test('gdn serve: a swarm trace as a live waterfall; a span opened; a waiting call approved from the page', async () => {
    const bundle = await copyFixture('agent');
    await writeFile(join(bundle, 'goondan.yaml'), swarmYaml());
    const serve = startGdn(['serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
    running.push(serve);
    await serve.waitForStderr('OpenAI-compatible base URL: ', 60_000);
    const url = /base URL: (\S+)\/v1/.exec(serve.stderr)![1]!;

    // The page and its script need no data: no CDN, a strict CSP.
    const page0 = await fetch(`${url}/console`);
    expect(page0.status).toBe(200);
    expect(page0.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page0.text()).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const script = await fetch(`${url}/console/app.js`);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(await script.text()).not.toContain('http://');
    // Bad input answers with coded errors.
    const unknown = await fetch(`${url}/console/api/traces/${'0'.repeat(31)}1`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('E_CONSOLE_TRACE_NOT_FOUND');
    const badStatus = await fetch(`${url}/console/api/traces?status=sleeping`);
    expect(badStatus.status).toBe(400);

    const posted = await fetch(`${url}/v1/agents/coordinator/instances/default/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'go' }),
    });
    expect(posted.status).toBe(202);
    await until('the bash call to wait for approval', async () => {
      const { approvals } = (await (await fetch(`${url}/v1/approvals`)).json()) as { approvals: unknown[] };
      return approvals.length === 1 ? true : undefined;
    });

    const page = await newPage();
    await page.goto(`${url}/console#/instances`);
    await page.getByRole('heading', { name: 'Open approvals (1)' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('bash__exec');
    await page.screenshot({ path: join(artifacts, 'instances.png'), fullPage: true });

    await page.getByRole('link', { name: 'Traces', exact: true }).click();
    await page.getByRole('heading', { name: 'Traces', exact: true }).waitFor();
    await page.locator('tbody a').first().click();
    await row(page, 'waiting for approval').waitFor();
    // Live nesting: the coordinator's step has not ended (its request waits for the worker), so its step and call
    // are not stored yet; the worker's turn hangs under the call all the same.
    const level = async (text: string) => Number(await row(page, text).first().getAttribute('aria-level'));
    expect(await level('turn worker')).toBe((await level('tool agents__request')) + 1);
    expect(await level('tool agents__request')).toBe((await level('turn coordinator')) + 2);
    await expect(row(page, 'tool agents__request').textContent()).resolves.toContain('running');
    // The running turn: the worker's parallel step with its failed call, and the call that waits.
    await expect(row(page, 'step 0').nth(1).textContent()).resolves.toContain('3 parallel');
    await expect(row(page, 'tool calc__boom').textContent()).resolves.toContain('E_TOOL');
    await page.screenshot({ path: join(artifacts, 'trace-waiting.png'), fullPage: true });

    // Keyboard: the tree takes focus, arrows move, Enter opens the span.
    await page.getByRole('tree').focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Enter');
    await page
      .getByRole('region', { name: 'Span details' })
      .getByRole('heading', { name: 'turn coordinator' })
      .waitFor();

    // A span opened: its redacted arguments from the audit log and the permission decision.
    await row(page, 'tool calc__add').first().click();
    const details = page.getByRole('region', { name: 'Span details' });
    await details.getByText('Arguments (redacted, from the audit log)').waitFor();
    expect(await details.textContent()).toMatch(/decisionallow — default sensitive: allow[\s\S]*"a": 1/);

    // Approve from the page; the live view shows the turn finish and the worker nested under the request.
    await row(page, 'waiting for approval').click();
    await details.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('bash__exec: approved.').waitFor();
    await row(page, 'tool bash__exec').waitFor();
    await page.locator('.summary .badge', { hasText: /^ok$/ }).waitFor({ timeout: 30_000 });
    expect(await level('turn worker')).toBe((await level('tool agents__request')) + 1);
    expect(await level('tool agents__request')).toBe((await level('turn coordinator')) + 2);
    await row(page, 'tool bash__exec').click();
    await details.getByText('answered by').waitFor();
    expect(await details.textContent()).toMatch(/approvalapproved \(once\)answered byconsolewaited/);
    await row(page, 'step 1').first().click();
    await details.getByText('Catalog offered at this step').waitFor();
    const catalog = await details.locator('.catalog li').allTextContents();
    expect(catalog.slice(0, 3)).toEqual(['calc__add', 'calc__boom', 'bash__exec']);
    expect(catalog).not.toContain('agents__request');
    await row(page, 'model scripted:w').first().click();
    expect(await details.textContent()).toMatch(/tokens\d+ in, \d+ outcache/);
    await page.screenshot({ path: join(artifacts, 'trace-done.png'), fullPage: true });
    expect(await accessibilityProblems(page, ['nav a', '.summary', '.wf-name', '.wf-meta', 'dt', 'dd'])).toEqual([]);

    // The other views.
    await page.goto(`${url}/console#/traces?tool=bash__exec`);
    await page.getByRole('table').waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await accessibilityProblems(page, ['th', 'td', 'label'])).toEqual([]);
    await page.goto(`${url}/console#/traces?error=E_NOPE`);
    await page.getByText('No trace matches.').waitFor();
    await page.goto(`${url}/console#/audit`);
    await page.getByText('approved by console').waitFor();
    await page.goto(`${url}/console#/conversation/coordinator/default`);
    await page.getByText('The worker is done.').waitFor();
    await page.goto(`${url}/console#/schedules`);
    await page.getByText('No schedules.').waitFor();
    await page.goto(`${url}/console#/trace/${'0'.repeat(31)}1`);
    await page.getByRole('alert').getByText('E_CONSOLE_TRACE_NOT_FOUND').waitFor();
    await page.close();

    serve.proc.kill('SIGTERM');
    expect((await serve.finish()).exitCode).toBe(143);
  });

  test('gdn trace --serve: no database yet, a corrupt one, a 10,000-span trace, and a token', async () => {
    const bundle = await copyFixture('agent');
    const console = startGdn(['trace', '--serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
    running.push(console);
    await console.waitForStderr('/console', 60_000);
    const url = /\[console\] (\S+)\/console/.exec(console.stderr)![1]!;
    const overview = async () =>
      (await (await fetch(`${url}/console/api/overview`)).json()) as {
        mode: string;
        instances: { agent: string; instanceKey: string }[];
        problems: { agent: string; instanceKey: string; code: string }[];
      };
    expect(await overview()).toMatchObject({ mode: 'bundle', instances: [], problems: [] });

    // A corrupt database beside a good one with a trace of 10,000 spans.
    const broken = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'broken' }).databaseFile;
    await mkdir(join(broken, '..'), { recursive: true });
    await writeFile(broken, 'this is not a database'.repeat(100));
    const big = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'big' }).databaseFile;
    const traceId = newTraceId();
    const db = openInstanceDatabase(big);
    new TraceStore(db).recordSpans(hugeTrace(traceId, 10_000));
    db.close();
    const state = await overview();
    expect(state.instances.map((i) => `${i.agent}/${i.instanceKey}`)).toEqual(['helper/big']);
    expect(state.problems).toEqual([expect.objectContaining({ instanceKey: 'broken', code: 'E_STORE_CORRUPT' })]);

    const page = await newPage();
    await page.goto(`${url}/console#/instances`);
    await page.getByRole('alert').getByText('E_STORE_CORRUPT').waitFor();
    const started = Date.now();
    await page.goto(`${url}/console#/trace/${traceId}`);
    await row(page, 'turn helper').waitFor();
    const firstRenderMs = Date.now() - started;
    // Only the rows in view are drawn; the tree still knows it has 10,000.
    const drawn = await page.locator('[role=treeitem]').count();
    expect(drawn).toBeLessThan(200);
    expect(await page.locator('[role=treeitem]').first().getAttribute('aria-setsize')).toBe('10000');
    await page.getByRole('tree').focus();
    await page.keyboard.press('End');
    await page.locator('[role=treeitem][aria-posinset="10000"]:focus').waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as PageWindow).document.title)).toBe('Goondan console');
    await page.screenshot({ path: join(artifacts, 'trace-10000-spans.png') });
    console.proc.kill('SIGINT');
    expect((await console.finish()).exitCode).toBe(130);
    process.stderr.write(`[console.test] first render of a 10,000-span trace: ${firstRenderMs} ms\n`);

    // Beyond loopback a token is required; the page asks for it, the data needs it.
    expect(() =>
      startConsoleServer({ bundle: { rootDir: bundle, resources: new Map() }, hostname: '0.0.0.0', port: 0 }),
    ).toThrow(expect.objectContaining({ code: 'E_SERVE_TOKEN_REQUIRED' }));
    const guarded = startConsoleServer({
      bundle: { rootDir: bundle, resources: new Map() },
      hostname: '127.0.0.1',
      port: 0,
      token: 'console-test-token',
    });
    try {
      expect((await fetch(`${guarded.url}/console`)).status).toBe(200);
      const refused = await fetch(`${guarded.url}/console/api/overview`);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('E_SERVE_UNAUTHORIZED');
      await page.goto(`${guarded.url}/console#/instances`);
      await page.getByLabel('Bearer token').fill('console-test-token');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('helper/big').waitFor();
    } finally {
      await page.close();
      await guarded.stop();
    }
  });
});

/** One turn of `count` spans: steps of a model call and tool calls, some of them failed. */
function hugeTrace(traceId: string, count: number): SpanRecord[] {
  const t0 = Date.now() - 60_000;
  const turn: SpanRecord = {
    traceId,
    spanId: newSpanId(),
    parentSpanId: null,
    kind: 'turn',
    name: 'turn helper',
    startedAt: t0,
    endedAt: t0 + 50_000,
    status: 'ok',
    attributes: { agent: 'helper', instance: 'big' },
  };
  const spans = [turn];
  for (let step = 0; spans.length < count; step += 1) {
    const at = t0 + step * 500;
    const stepSpan: SpanRecord = {
      ...turn,
      spanId: newSpanId(),
      parentSpanId: turn.spanId,
      kind: 'step',
      name: `step ${step}`,
      startedAt: at,
      endedAt: at + 400,
      attributes: { stepIndex: step },
    };
    spans.push(stepSpan, {
      ...stepSpan,
      spanId: newSpanId(),
      parentSpanId: stepSpan.spanId,
      kind: 'model',
      name: 'model scripted:big',
      endedAt: at + 100,
      attributes: { inputTokens: 100, outputTokens: 10 },
    });
    for (let call = 0; call < 48 && spans.length < count; call += 1) {
      spans.push({
        ...stepSpan,
        spanId: newSpanId(),
        parentSpanId: stepSpan.spanId,
        kind: 'tool',
        name: 'tool calc__add',
        startedAt: at + 100 + call,
        endedAt: at + 150 + call,
        status: call % 10 === 0 ? 'error' : 'ok',
        attributes: {
          toolName: 'calc__add',
          toolCallId: `call_${step}_${call}`,
          ...(call % 10 === 0 ? { errorCode: 'E_TOOL' } : {}),
        },
      });
    }
  }
  return spans.slice(0, count);
}
