// The web console probed as a hostile outsider would: odd paths, foreign origins and hosts, huge stored data, and
// text written by a model or a tool that tries to become markup. Real gdn processes (gdn trace --serve, gdn serve
// --token) over loopback; the stored-XSS test renders every view in headless Chromium (playwright-core).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  ApprovalStore,
  AuditStore,
  ConversationStore,
  instancePaths,
  type Message,
  newSpanId,
  newTraceId,
  openInstanceDatabase,
  type SpanRecord,
  TraceStore,
} from '@goondan/core';
import { type Browser, chromium } from 'playwright-core';
import { cleanupTempDirs, cliEnv, copyFixture, rawRequest, startGdn } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const running: ReturnType<typeof startGdn>[] = [];

/** Text that becomes markup, a script or a link if a sink treats it as HTML or a URL; with U+2028/2029 and NUL. */
const HOSTILE =
  '<script>window.__pwned="script"</script></script><script>window.__pwned="close"</script>' +
  '"><img src=x onerror="window.__pwned=\'img\'"><svg onload="window.__pwned=\'svg\'"></svg>' +
  "' onmouseover='window.__pwned=1' javascript:window.__pwned='url' \u2028\u2029 nul:\u0000:";

let bundle = '';
let url = '';
const traceId = newTraceId();
const namesTraceId = newTraceId();

function openDb(root: string, agentName: string, instanceKey: string) {
  const { databaseFile } = instancePaths({ rootDir: root, agentName, instanceKey });
  mkdirSync(dirname(databaseFile), { recursive: true });
  return openInstanceDatabase(databaseFile);
}

const message = (index: number, content: unknown, role = 'user'): Message => ({
  id: `msg_${index}`,
  data: { role, content } as Message['data'],
  metadata: {},
  createdAt: new Date(1_700_000_000_000 + index),
  source: { type: 'user' },
});

function pendingApproval(id: string, overrides: { traceId?: string; toolName?: string; args?: unknown } = {}) {
  const now = Date.now();
  return {
    id,
    agent: 'helper',
    instanceKey: 'hostile',
    turnId: 'turn_1',
    traceId: overrides.traceId ?? null,
    toolCallId: `call_${id}`,
    toolName: overrides.toolName ?? 'bash__exec',
    category: 'restricted' as const,
    args: (overrides.args ?? { command: 'ls' }) as never,
    rule: `category restricted: ask ${HOSTILE}`,
    source: { kind: 'user', name: 'cli' } as never,
    status: 'pending' as const,
    scope: null,
    decidedBy: null,
    reason: null,
    createdAt: now,
    expiresAt: now + 3_600_000,
    decidedAt: null,
  };
}

/** An instance whose conversation, trace, audit log and approvals all hold HOSTILE. */
function seedHostile(root: string): void {
  const db = openDb(root, 'helper', 'hostile');
  new ConversationStore(db).appendMany([
    message(0, HOSTILE),
    message(
      1,
      [
        { type: 'text', text: HOSTILE },
        { type: 'tool-call', toolCallId: 'call_1', toolName: HOSTILE, input: { [HOSTILE]: HOSTILE } },
      ],
      'assistant',
    ),
    message(2, [{ type: 'tool-result', toolCallId: 'call_1', toolName: HOSTILE, output: HOSTILE }], 'tool'),
  ]);
  const t0 = Date.now() - 10_000;
  const turn: SpanRecord = {
    traceId,
    spanId: newSpanId(),
    parentSpanId: null,
    kind: 'turn',
    name: `turn ${HOSTILE}`,
    startedAt: t0,
    endedAt: t0 + 5000,
    status: 'error',
    attributes: { eventType: HOSTILE, errorCode: HOSTILE, errorMessage: HOSTILE },
  };
  const step: SpanRecord = {
    ...turn,
    spanId: newSpanId(),
    parentSpanId: turn.spanId,
    kind: 'step',
    name: `step ${HOSTILE}`,
    startedAt: t0 + 10,
    endedAt: t0 + 4000,
    status: 'ok',
    attributes: { stepIndex: 0, catalog: [HOSTILE, 'calc__add'] },
  };
  const tool: SpanRecord = {
    ...step,
    spanId: newSpanId(),
    parentSpanId: step.spanId,
    kind: 'tool',
    name: `tool ${HOSTILE}`,
    startedAt: t0 + 20,
    endedAt: t0 + 30,
    status: 'error',
    attributes: {
      toolName: HOSTILE,
      toolCallId: 'call_1',
      errorCode: 'E_TOOL',
      errorMessage: HOSTILE,
      errorStack: HOSTILE,
    },
  };
  new TraceStore(db).recordSpans([turn, step, tool]);
  new AuditStore(db).append({
    at: t0 + 20,
    agent: 'helper',
    instanceKey: 'hostile',
    turnId: 'turn_1',
    toolCallId: 'call_1',
    traceId,
    toolName: HOSTILE,
    category: 'restricted',
    source: HOSTILE,
    decision: 'allow',
    rule: HOSTILE,
    direct: false,
    approval: { id: null, outcome: 'approved', scope: 'once', by: HOSTILE, reason: HOSTILE },
    durationMs: 10,
    status: 'error',
    errorCode: HOSTILE,
    args: { [HOSTILE]: HOSTILE },
    output: HOSTILE,
  });
  new ApprovalStore(db).create(
    pendingApproval('apr_hostile', { traceId, toolName: HOSTILE, args: { [HOSTILE]: HOSTILE } }),
  );
  // One for the origin tests to try to answer.
  new ApprovalStore(db).create(pendingApproval('apr_target'));
  db.close();
}

/** What no page should send whole: a message of 10 MB, 200 of 1 MB, 100,000 small ones, an approval of 10 MB. */
function seedHuge(root: string): void {
  const big = openDb(root, 'helper', 'bigmsg');
  new ConversationStore(big).appendMany([
    message(0, 'x'.repeat(10_000_000)),
    message(
      1,
      [{ type: 'tool-result', toolCallId: 'c', toolName: 'bash__exec', output: 'o'.repeat(5_000_000) }],
      'tool',
    ),
    message(2, 'small'),
  ]);
  big.close();
  // A call a model made of 10 MB, waiting for a person: the instances view polls the pending ones every 2 s.
  const asks = openDb(root, 'helper', 'bigask');
  new ApprovalStore(asks).create({
    ...pendingApproval('apr_big', { args: { command: 'z'.repeat(10_000_000) } }),
    instanceKey: 'bigask',
  });
  asks.close();
  // A model that called tools by 1,000 names of 10,000 characters each: every call is a span named after it.
  const names = openDb(root, 'helper', 'names');
  const t0 = Date.now() - 20_000;
  const turn: SpanRecord = {
    traceId: namesTraceId,
    spanId: newSpanId(),
    parentSpanId: null,
    kind: 'turn',
    name: 'turn helper',
    startedAt: t0,
    endedAt: t0 + 5000,
    status: 'ok',
    attributes: {},
  };
  const calls = Array.from({ length: 1000 }, (_, index): SpanRecord => {
    const toolName = `${index}_${'n'.repeat(10_000)}`;
    return {
      ...turn,
      spanId: newSpanId(),
      parentSpanId: turn.spanId,
      kind: 'tool',
      name: `tool ${toolName}`,
      startedAt: t0 + index,
      endedAt: t0 + index + 1,
      status: 'error',
      attributes: { toolName, toolCallId: `call_${index}`, errorCode: `E_${'X'.repeat(10_000)}${index}` },
    };
  });
  new TraceStore(names).recordSpans([turn, ...calls]);
  names.close();
  // 300 calls to tools that do not exist, by names of 100,000 characters (older than the hostile row, which the
  // audit view still shows).
  const audits = openDb(root, 'helper', 'audits');
  const audit = new AuditStore(audits);
  for (let index = 0; index < 300; index += 1) {
    audit.append({
      at: 1_700_000_000_000 + index,
      agent: 'helper',
      instanceKey: 'audits',
      turnId: 'turn_a',
      toolCallId: `call_${index}`,
      traceId: null,
      toolName: `${index}${'q'.repeat(100_000)}`,
      category: null,
      source: null,
      decision: 'refused',
      rule: null,
      direct: false,
      approval: null,
      durationMs: 0,
      status: 'error',
      errorCode: 'E_TOOL_NOT_FOUND',
      args: {},
      output: null,
    });
  }
  audits.close();
  const fat = openDb(root, 'helper', 'fat');
  new ConversationStore(fat).appendMany(
    Array.from({ length: 200 }, (_, index) => message(index, 'y'.repeat(1_000_000))),
  );
  fat.close();
  const many = openDb(root, 'helper', 'many');
  new ConversationStore(many).appendMany(Array.from({ length: 100_000 }, (_, index) => message(index, `m ${index}`)));
  many.close();
}

async function startConsole(args: string[], ready: string, pattern: RegExp) {
  const started = startGdn(args, { env: cliEnv() });
  running.push(started);
  await started.waitForStderr(ready, 60_000);
  return pattern.exec(started.stderr)![1]!;
}

beforeAll(async () => {
  bundle = await copyFixture('agent');
  seedHostile(bundle);
  seedHuge(bundle);
  url = await startConsole(
    ['trace', '--serve', '--bundle', bundle, '--port', '0'],
    '/console',
    /\[console\] (\S+)\/console/,
  );
}, 60_000);

afterAll(async () => {
  for (const server of running.splice(0)) {
    server.proc.kill('SIGKILL');
    await server.proc.exited;
  }
  await cleanupTempDirs();
});

type ErrorBody = { error: { code: string; message: string } };

describe('the console, probed by a hostile outsider', () => {
  test('HTML answers carry a strict CSP (frame-ancestors, Trusted Types), X-Frame-Options and nosniff; data answers are not cacheable or embeddable', async () => {
    for (const path of [
      '/console',
      '/console/errors/E_CONSOLE_BUILD',
      '/console/errors/E_NO_SUCH_CODE',
      '/console/errors/x',
    ]) {
      const answer = await fetch(`${url}${path}`);
      expect(answer.headers.get('content-type')).toContain('text/html');
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("require-trusted-types-for 'script'");
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      await answer.arrayBuffer();
    }
    for (const path of ['/console/app.js', '/console/app.css']) {
      const answer = await fetch(`${url}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      await answer.arrayBuffer();
    }
    // Data, and a coded failure of a data route: never cached, never pulled in by another site's <script>.
    for (const path of [
      '/console/api/overview',
      `/console/api/traces/${'0'.repeat(32)}`,
      '/console/api/audit?limit=0',
    ]) {
      const answer = await fetch(`${url}${path}`);
      expect(answer.headers.get('content-type')).toContain('application/json');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      await answer.arrayBuffer();
    }
  });

  test('odd paths (traversal, encoded NUL and slashes, 10,000 characters, unknown routes, wrong methods) answer coded errors, never a file', async () => {
    const paths = [
      '/console/../../../../etc/passwd',
      '/console/..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/app.js%00.html',
      '/console/app.js/..%2f..%2fconsole-assets.ts',
      '/console/client/app.ts',
      '/console/errors/..%2f..%2f..%2fpackage',
      '/console/errors/E_CONSOLE_BUILD%2f..%2f..%2f..%2fpackage',
      '/console/errors/E_%00',
      '/console/api/traces/..%2f..%2f',
      `/console/api/traces/${traceId}/spans/..%2f..%2f`,
      '/console/api/conversation/..%2f..%2f/..%2f..%2f',
      '/console/api/conversation/helper/%00',
      `/console/api/conversation/${'a'.repeat(10_000)}/${'b'.repeat(5_000)}`,
      '/console/api/traces/%ff',
      `/console/api/traces/${'a'.repeat(10_000)}`,
      `/${'x'.repeat(10_000)}`,
      '/console/api',
      '/console/api/nope',
      '/.git/config',
    ];
    for (const path of paths) {
      const answer = await rawRequest(url, `GET ${path} HTTP/1.1`);
      expect({ path: path.slice(0, 80), status: [400, 404].includes(answer.status) }).toEqual({
        path: path.slice(0, 80),
        status: true,
      });
      expect(answer.body).not.toContain('root:');
      expect(answer.body).not.toContain('"name": "@goondan');
      expect(answer.body).not.toContain('import ');
      // A coded JSON error; an error page path that is not a code gets the plain HTML 404 (docs/console.md).
      if (answer.headers['content-type']?.includes('text/html')) {
        expect(path).toStartWith('/console/errors/');
        expect(answer.body).toContain('Not an error code.');
      } else {
        const body = JSON.parse(answer.body) as ErrorBody;
        expect(body.error.code).toMatch(
          /^E_(SERVE_ROUTE_NOT_FOUND|SERVE_BAD_REQUEST|CONSOLE_TRACE_NOT_FOUND|INSTANCE_NOT_FOUND|INSTANCE_KEY_INVALID)$/,
        );
        // What the console's own routes echo of a long path stays short.
        if (body.error.code !== 'E_SERVE_ROUTE_NOT_FOUND') expect(body.error.message.length).toBeLessThan(400);
      }
    }
    // A key no instance can have is a bad request, as on /v1/agents/A/instances/K/conversation; a valid one that
    // never ran is not found.
    for (const [key, status, code] of [
      ['..%2f..%2fetc', 400, 'E_INSTANCE_KEY_INVALID'],
      ['%00', 400, 'E_INSTANCE_KEY_INVALID'],
      ['never-ran', 404, 'E_INSTANCE_NOT_FOUND'],
    ] as const) {
      const answer = await fetch(`${url}/console/api/conversation/helper/${key}`);
      expect({ key, status: answer.status, code: ((await answer.json()) as ErrorBody).error.code }).toEqual({
        key,
        status,
        code,
      });
    }
    for (const [method, path] of [
      ['POST', '/console'],
      ['DELETE', '/console/api/overview'],
      ['PUT', '/console/app.js'],
      ['PATCH', '/v1/approvals/apr_target/approve'],
      ['GET', '/v1/approvals/apr_target/approve'],
    ] as const) {
      const answer = await fetch(`${url}${path}`, { method });
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 405 });
      expect(answer.headers.get('allow')).toBeTruthy();
      expect(((await answer.json()) as ErrorBody).error.code).toBe('E_SERVE_ROUTE_NOT_FOUND');
    }
  });

  test('a foreign Origin cannot answer an approval; a Host that is not loopback (DNS rebinding) reaches nothing', async () => {
    const approve = (headers: Record<string, string>) =>
      fetch(`${url}/v1/approvals/apr_target/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ by: 'attacker' }),
      });
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example', 'file://']) {
      const answer = await approve({ origin });
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 });
      expect(((await answer.json()) as ErrorBody).error.code).toBe('E_SERVE_UNAUTHORIZED');
    }
    // A form of another site posts text/plain; still its Origin.
    const form = await fetch(`${url}/v1/approvals/apr_target/approve`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: '{"by":"attacker"}',
    });
    expect(form.status).toBe(403);
    await form.arrayBuffer();
    for (const host of ['evil.example', 'evil.example:8788', '127.0.0.1.evil.example', 'localhost.evil.example']) {
      for (const path of ['/console', '/console/app.js', '/console/api/overview', '/v1/approvals']) {
        const answer = await rawRequest(url, `GET ${path} HTTP/1.1`, { host });
        expect({ host, path, status: answer.status }).toEqual({ host, path, status: 403 });
        expect((JSON.parse(answer.body) as ErrorBody).error.code).toBe('E_SERVE_UNAUTHORIZED');
      }
      const posted = await rawRequest(
        url,
        'POST /v1/approvals/apr_target/approve HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 0',
        { host },
      );
      expect(posted.status).toBe(403);
    }
    // Nothing above answered it.
    const listed = (await (await fetch(`${url}/v1/approvals`)).json()) as { approvals: { id: string }[] };
    expect(listed.approvals.map((approval) => approval.id)).toContain('apr_target');
  });

  test('gdn serve --token: approvals and data need the token, a foreign Origin is refused even with it, the page holds no data', async () => {
    const served = await copyFixture('agent');
    const db = openDb(served, 'helper', 'default');
    new ApprovalStore(db).create({ ...pendingApproval('apr_served'), instanceKey: 'default' });
    db.close();
    const token = 'hostile-test-token';
    const base = await startConsole(
      ['serve', '--bundle', served, '--port', '0', '--token', token],
      'OpenAI-compatible base URL: ',
      /base URL: (\S+)\/v1/,
    );
    const approve = (headers: Record<string, string>) =>
      fetch(`${base}/v1/approvals/apr_served/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ by: 'attacker' }),
      });
    const none = await approve({});
    expect(none.status).toBe(401);
    expect(((await none.json()) as ErrorBody).error.code).toBe('E_SERVE_UNAUTHORIZED');
    const wrong = await approve({ authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    await wrong.arrayBuffer();
    const foreign = await approve({ authorization: `Bearer ${token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    await foreign.arrayBuffer();
    for (const path of ['/console/api/overview', '/console/api/audit', `/console/api/traces/${traceId}/live`]) {
      const answer = await fetch(`${base}${path}`);
      expect({ path, status: answer.status }).toEqual({ path, status: 401 });
      await answer.arrayBuffer();
    }
    // The page, script and style are public and hold nothing of the bundle's state.
    const page = await fetch(`${base}/console`);
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain('apr_served');
    const listed = await fetch(`${base}/v1/approvals`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await listed.json()) as { approvals: { id: string }[] }).approvals.map((a) => a.id)).toEqual([
      'apr_served',
    ]);
    const answered = await approve({ authorization: `Bearer ${token}`, origin: base });
    expect(answered.status).toBe(200);
    await answered.arrayBuffer();
  }, 90_000);

  test('huge conversations and approvals stay bounded: a 10 MB message is cut, 200 of 1 MB fill pages of about 1 MB, 100,000 messages page back, 10 MB of arguments and tool names of 10,000 characters in traces and the audit log are cut', async () => {
    type Page = {
      total: number;
      earlier: string | null;
      messages: { id: string; content: unknown; cutChars?: number }[];
    };
    const get = async (path: string) => {
      const answer = await fetch(`${url}/console/api/conversation/helper/${path}`);
      expect(answer.status).toBe(200);
      const text = await answer.text();
      return { size: text.length, page: JSON.parse(text) as Page };
    };
    const big = await get('bigmsg');
    expect(big.size).toBeLessThan(100_000);
    expect(big.page.messages.map((m) => m.id)).toEqual(['msg_0', 'msg_1', 'msg_2']);
    expect(big.page.messages[0]!.cutChars).toBe(10_000_000 - (big.page.messages[0]!.content as string).length);
    expect(big.page.messages[1]!.cutChars).toBeGreaterThan(4_900_000);
    expect(big.page.messages[2]).not.toHaveProperty('cutChars');

    // 200 messages of 1 MB: the page stops near 1 MB and points at the page before it; paging back reaches msg_0.
    let fat = await get('fat?limit=5000');
    expect(fat.size).toBeLessThan(1_100_000);
    expect(fat.page.messages.at(-1)!.id).toBe('msg_199');
    const seen = new Set(fat.page.messages.map((m) => m.id));
    while (fat.page.earlier) {
      fat = await get(`fat?before=${fat.page.earlier}`);
      expect(fat.size).toBeLessThan(1_100_000);
      for (const m of fat.page.messages) seen.add(m.id);
    }
    expect(seen.size).toBe(200);
    expect(seen.has('msg_0')).toBe(true);

    const many = await get('many');
    expect(many.page.total).toBe(100_000);
    expect(many.page.messages).toHaveLength(200);
    expect(many.page.earlier).toBe('msg_99800');
    const most = await get('many?limit=5000');
    expect(most.page.messages).toHaveLength(5000);
    expect(most.size).toBeLessThan(1_100_000);

    // 1,000 tool names of 10,000 characters: the trace's row in the list and its outline stay small.
    const list = await (await fetch(`${url}/console/api/traces?instance=names`)).text();
    expect(list.length).toBeLessThan(50_000);
    const [row] = (JSON.parse(list) as { traces: { tools: string[]; toolsOmitted?: number; errorCodes: string[] }[] })
      .traces;
    expect(row!.tools).toHaveLength(50);
    expect(row!.toolsOmitted).toBe(950);
    expect(Math.max(...row!.tools.map((name) => name.length))).toBeLessThanOrEqual(201);
    expect(Math.max(...row!.errorCodes.map((code) => code.length))).toBeLessThanOrEqual(65);
    const outline = await (await fetch(`${url}/console/api/traces/${namesTraceId}`)).text();
    expect(outline.length).toBeLessThan(400_000);
    expect((JSON.parse(outline) as { spans: number }).spans).toBe(1001);

    // 300 audit rows naming tools of 100,000 characters: 30 MB before, the names cut to a line now.
    const log = await (await fetch(`${url}/console/api/audit?limit=300`)).text();
    expect(log.length).toBeLessThan(300_000);
    const { entries } = JSON.parse(log) as { entries: { toolName: string }[] };
    expect(entries).toHaveLength(300);
    expect(Math.max(...entries.map((entry) => entry.toolName.length))).toBeLessThanOrEqual(201);

    // The pending approval of 10 MB: its arguments' start, and how much is left out.
    const overview = await (await fetch(`${url}/console/api/overview`)).text();
    expect(overview.length).toBeLessThan(100_000);
    const { instances } = JSON.parse(overview) as {
      instances: { instanceKey: string; approvals: { id: string; args: unknown; argsCutChars?: number }[] }[];
    };
    const [asked] = instances.find((instance) => instance.instanceKey === 'bigask')!.approvals;
    expect(asked).toMatchObject({ id: 'apr_big', args: { truncated: true, originalChars: 10_000_014 } });
    expect(asked!.argsCutChars).toBe(10_000_014 - 4000);
  });

  test('stored text that tries to be markup renders as text in every view (Chromium), and a malformed address shows an error', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: install the Debian package chromium (listed in .ci/apt-packages).`);
    }
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      page.on('dialog', (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      page.on('console', (line) => {
        if (line.type() === 'error') problems.push(`console: ${line.text()}`);
      });
      const pwned = () => page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned ?? null);
      // Elements in <main> that only markup made of stored text would create.
      const injected = () =>
        page.locator('main img, main svg, main script, main iframe, main [onerror], main [onload]');
      const visible = async (text: string) => {
        await page.getByText(text, { exact: false }).first().waitFor();
      };
      const start = '<script>window.__pwned="script"</script>';

      await page.goto(`${url}/console#/instances`);
      await page.getByRole('heading', { name: 'Open approvals (3)' }).waitFor();
      await visible(start);
      await page.getByText('characters more than the console was sent').waitFor();
      await page.goto(`${url}/console#/audit`);
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      await page.getByText('arguments and output').first().click();
      await visible(start);
      await page.goto(`${url}/console#/conversation/helper/hostile`);
      await page.getByRole('heading', { name: 'Conversation of helper/hostile' }).waitFor();
      await visible(start);
      await page.goto(`${url}/console#/traces`);
      await page.getByRole('heading', { name: 'Traces' }).waitFor();
      await page.goto(`${url}/console#/trace/${traceId}`);
      for (const name of ['turn ', 'step ', 'tool ']) {
        await page
          .locator('[role=treeitem]', { hasText: `${name}${start}` })
          .first()
          .click();
        await page.locator('section.detail', { hasText: start }).waitFor();
      }
      expect(await pwned()).toBeNull();
      expect(await injected().count()).toBe(0);
      // The error code that is not one links to its page by encoded path, not as a URL of its own.
      const links = await page.locator('main a').evaluateAll((all) => all.map((a) => a.getAttribute('href') ?? ''));
      expect(links.filter((href) => /^\s*javascript:/i.test(href))).toEqual([]);

      // A hand-typed address with a stray '%': the view says what is wrong instead of staying on "Loading…".
      await page.goto(`${url}/console#/trace/%ff`);
      await page.getByRole('alert').getByText('E_CONSOLE_TRACE_NOT_FOUND').waitFor();
      await page.goto(`${url}/console#/conversation/helper/%E0%A4%A`);
      await page.getByRole('alert').getByText('E_INSTANCE_KEY_INVALID').waitFor();

      // The 10 MB message: a page that says what it does not show.
      await page.goto(`${url}/console#/conversation/helper/bigmsg`);
      await page.getByText('9980000 more characters of this message are not shown here.').waitFor();
      expect(problems.filter((line) => !/status of 40[04]/.test(line))).toEqual([]);
    } finally {
      await browser?.close();
    }
  }, 90_000);
});
