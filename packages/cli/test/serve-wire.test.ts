// gdn serve and gdn trace --serve on the wire, as a black-box probe sees them: a client that leaves a stream, bodies
// over the limit however large, HEAD and other methods, the console's filters, and what open live views cost.
import { Database } from 'bun:sqlite';
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { instancePaths, newSpanId, newTraceId, openInstanceDatabase, type SpanRecord, TraceStore } from '@goondan/core';
import { agentBundle, cleanupTempDirs, cliEnv, copyFixture, rawRequest, scriptedModel, startGdn } from './helpers.ts';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
});

/** Starts `gdn serve --port 0` over `bundle`; resolves with the process and its URL. */
async function serve(bundle: string, args: string[] = []) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0', ...args], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  return { server, url: /base URL: (\S+)\/v1/.exec(server.stderr)![1]! };
}

/** Starts `gdn trace --serve --port 0` (the console over stored state, no agents). */
async function traceServe(bundle: string) {
  const server = startGdn(['trace', '--serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('/console', 60_000);
  return { server, url: /\[console\] (\S+)\/console/.exec(server.stderr)![1]! };
}

/** Asks `check` until it holds; false if it still does not after `timeoutMs`. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(50);
  }
  return true;
}

const codeOf = (body: string) => (JSON.parse(body) as { error?: { code?: string } }).error?.code;

describe('gdn serve: streams, bodies and methods', () => {
  test('a client that leaves a streamed completion mid-turn cancels the turn; nothing is left unhandled', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'Too late.', delayMs: 120_000 }]));
    const { server, url } = await serve(bundle);
    // A client that reads the first chunk and hangs up (its socket closed).
    const { hostname, port } = new URL(url);
    const firstChunk = Promise.withResolvers<string>();
    const socket = await Bun.connect({
      hostname,
      port: Number(port),
      socket: { data: (_socket, chunk) => firstChunk.resolve(new TextDecoder().decode(chunk)) },
    });
    const body = JSON.stringify({ model: 'helper', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
        `X-Goondan-Instance: leaver\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(await firstChunk.promise).toContain('"role":"assistant"');
    // Once its turn runs (its model waits two minutes), the client hangs up; the turn ends as cancelled.
    const traces = (status: string) => async () => {
      const answer = await fetch(`${url}/console/api/traces?instance=leaver&status=${status}`);
      return ((await answer.json()) as { traces: unknown[] }).traces.length === 1;
    };
    expect(await eventually(traces('running'))).toBe(true);
    socket.terminate();
    expect(await eventually(traces('cancelled'))).toBe(true);

    // Its result reached the server, which had nowhere to send it: the end of a stream nobody reads.
    server.proc.kill('SIGTERM');
    const { stderr } = await server.finish();
    expect(stderr).not.toContain('Unhandled promise rejection');
    expect(stderr).not.toContain('Controller is already closed');
  }, 120_000);

  test('a turn killed at the end of the grace period is not retried by the client on its own; one not started may be', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'Too late.', delayMs: 120_000 }]));
    const { server, url } = await serve(bundle, ['--grace', '1000']);
    const complete = () =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goondan-instance': 'slow' },
        body: JSON.stringify({ model: 'helper', messages: [{ role: 'user', content: 'Hi' }] }),
      });
    const running = complete();
    const traces = async () => {
      const answer = await fetch(`${url}/console/api/traces?instance=slow&status=running`);
      return ((await answer.json()) as { traces: unknown[] }).traces.length === 1;
    };
    expect(await eventually(traces)).toBe(true);
    // A second request of the instance waits behind the running turn.
    const queued = complete();
    const waiting = async () => {
      const health = (await (await fetch(`${url}/healthz`)).json()) as { instances: { queueDepth: number }[] };
      return health.instances[0]?.queueDepth === 1;
    };
    expect(await eventually(waiting)).toBe(true);
    server.proc.kill('SIGTERM');
    const [killed, refused] = await Promise.all([running, queued]);
    // Its input is stored and its turn ran: sent again, the message would be a second turn.
    expect({
      status: killed.status,
      code: codeOf(await killed.text()),
      retry: killed.headers.get('x-should-retry'),
    }).toEqual({
      status: 503,
      code: 'E_AGENT_SHUTTING_DOWN',
      retry: 'false',
    });
    // Nothing of it ran: a client may send it again (to the next start), after the seconds left of the grace period.
    expect({
      status: refused.status,
      code: codeOf(await refused.text()),
      retry: refused.headers.get('x-should-retry'),
      after: Number(refused.headers.get('retry-after')),
    }).toEqual({
      status: 503,
      code: 'E_AGENT_SHUTTING_DOWN',
      retry: 'true',
      after: 1,
    });
    expect(killed.headers.get('retry-after')).toBeNull();
  }, 120_000);

  test('HEAD answers as GET without a body; a method a path does not take is a coded 405', async () => {
    const { url } = await serve(await agentBundle());
    const health = await rawRequest(url, 'HEAD /healthz HTTP/1.1');
    expect(health.status).toBe(200);
    expect(health.headers['content-type']).toContain('application/json');
    expect(health.body).toBe('');
    const overview = await rawRequest(url, 'HEAD /console/api/overview HTTP/1.1');
    expect({ status: overview.status, body: overview.body }).toEqual({ status: 200, body: '' });
    const chat = await rawRequest(url, 'HEAD /v1/chat/completions HTTP/1.1');
    expect({ status: chat.status, allow: chat.headers.allow }).toEqual({ status: 405, allow: 'POST' });

    for (const method of ['PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
      const answer = await rawRequest(url, `${method} /healthz HTTP/1.1`);
      expect({ method, status: answer.status, allow: answer.headers.allow, code: codeOf(answer.body) }).toEqual({
        method,
        status: 405,
        allow: 'GET, HEAD',
        code: 'E_SERVE_ROUTE_NOT_FOUND',
      });
    }
    const unknownPath = await rawRequest(url, 'PUT /v2/nothing HTTP/1.1');
    expect({ status: unknownPath.status, code: codeOf(unknownPath.body) }).toEqual({
      status: 404,
      code: 'E_SERVE_ROUTE_NOT_FOUND',
    });
    // A path of kilobytes is quoted cut, not echoed whole.
    const longPath = await rawRequest(url, `GET /${'x'.repeat(8000)} HTTP/1.1`);
    expect(longPath.status).toBe(404);
    const quoted = (JSON.parse(longPath.body) as { error: { message: string } }).error.message;
    expect(quoted).toStartWith(`GET /${'x'.repeat(199)}…: no such endpoint.`);
    expect(longPath.body.length).toBeLessThan(2000);
    // A path of an endpoint whose part is not percent-encoded UTF-8 is a bad request, not an unknown path.
    for (const head of [
      'GET /v1/models/%ff HTTP/1.1',
      'GET /v1/agents/helper/instances/%E0%A4%A/conversation HTTP/1.1',
    ]) {
      const answer = await rawRequest(url, head);
      expect({ head, status: answer.status, code: codeOf(answer.body) }).toEqual({
        head,
        status: 400,
        code: 'E_SERVE_BAD_REQUEST',
      });
    }
    const notAnEndpoint = await rawRequest(url, 'GET /v2/%ff HTTP/1.1');
    expect(notAnEndpoint.status).toBe(404);
    // A misspelt field of a body is a 400 naming the field meant, not ignored (a turn for nobody, a deny without its
    // reason, a schedule refused for wanting a delay it was given).
    for (const [path, body, meant] of [
      ['agents/helper/instances/typo/events', { input: 'Hi', usrId: 'bob' }, 'userId'],
      ['approvals/apr_none/deny', { resaon: 'not now' }, 'reason'],
      ['schedules', { agent: 'helper', in: 600_000, input: 'Hi' }, 'inMs'],
    ] as const) {
      const answer = await fetch(`${url}/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const error = ((await answer.json()) as { error: { code: string; message: string } }).error;
      expect({ path, status: answer.status, code: error.code }).toEqual({
        path,
        status: 400,
        code: 'E_SERVE_BAD_REQUEST',
      });
      expect(error.message).toContain(`did you mean '${meant}'`);
    }
    // What to do says where an HTTP client's key goes, not only gdn's --instance flag.
    const badKey = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goondan-instance': '../etc' },
      body: JSON.stringify({ model: 'helper', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const badKeyError = ((await badKey.json()) as { error: { code: string; suggestion: string } }).error;
    expect({ status: badKey.status, code: badKeyError.code }).toEqual({ status: 400, code: 'E_INSTANCE_KEY_INVALID' });
    expect(badKeyError.suggestion).toContain('X-Goondan-Instance');
    // A misspelt, repeated or impossible filter of a list is a 400, not every instance's approvals or schedules.
    for (const query of [
      'approvals?instnace=alice',
      'approvals?all=yes',
      'approvals?instance=../x',
      'schedules?stauts=all',
      'agents/helper/instances/default/conversation?limti=1',
      'agents/helper/instances/default/conversation?limit=1&limit=2',
    ]) {
      const answer = await fetch(`${url}/v1/${query}`);
      expect({ query, status: answer.status, code: codeOf(await answer.text()) }).toEqual({
        query,
        status: 400,
        code: 'E_SERVE_BAD_REQUEST',
      });
    }
    for (const query of ['approvals?instance=alice&all=true', 'schedules?status=all&agent=helper']) {
      expect((await fetch(`${url}/v1/${query}`)).status).toBe(200);
    }
  }, 120_000);

  test('a body declared over 1 MiB is the coded 413 before it is read, and the connection is closed', async () => {
    const { url } = await serve(await agentBundle());
    // Between 1 and 2 MiB, on an endpoint that takes no body and on one that does; the body is never sent, and the
    // server closes the connection rather than wait for it.
    for (const path of ['GET /healthz', 'POST /v1/chat/completions']) {
      const head = `${path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 1500000`;
      const answer = await rawRequest(url, head, { keepAlive: true });
      expect({ path, status: answer.status, code: codeOf(answer.body) }).toEqual({
        path,
        status: 413,
        code: 'E_SERVE_BODY_TOO_LARGE',
      });
      expect(answer.headers.connection).toBe('close');
    }
  }, 120_000);

  // Needs `maxRequestBodySize: BUN_MAX_REQUEST_BODY_SIZE` in serve-host.ts (Bun answers a bare 413 above 2 MiB
  // before the API sees the request); gdn trace --serve, below, has it. Make this a test once serve-host has it.
  test('gdn serve: a body declared over 2 MiB is the coded 413 too', async () => {
    const { url } = await serve(await agentBundle());
    const answer = await rawRequest(
      url,
      'POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 4000000000',
    );
    expect({ status: answer.status, code: codeOf(answer.body) }).toEqual({
      status: 413,
      code: 'E_SERVE_BODY_TOO_LARGE',
    });
  });
});

describe('gdn serve: an instance database that cannot be read or written', () => {
  test("does not stop the other instances' approvals from being listed and answered over HTTP", async () => {
    const bash = { toolCalls: [{ name: 'bash__exec', args: { command: 'echo hi' } }] };
    const bundle = await agentBundle(scriptedModel([bash, { text: 'Ran it.' }]));
    const { url } = await serve(bundle);
    const posted = await fetch(`${url}/v1/agents/helper/instances/asker/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Run it.' }),
    });
    expect(posted.status).toBe(202);
    const pending = async () => {
      const answer = (await (await fetch(`${url}/v1/approvals`)).json()) as { approvals?: { id: string }[] };
      return answer.approvals?.[0]?.id;
    };
    expect(await eventually(async () => (await pending()) !== undefined)).toBe(true);
    const id = (await pending())!;
    // Another instance's database is not SQLite (a disk error, a stray file).
    const broken = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'broken' });
    mkdirSync(dirname(broken.databaseFile), { recursive: true });
    writeFileSync(broken.databaseFile, 'not a database, not at all, not even close to one');

    const list = await fetch(`${url}/v1/approvals`);
    const listed = (await list.json()) as {
      approvals: { id: string }[];
      problems: { instanceKey: string; code: string }[];
    };
    expect({ status: list.status, ids: listed.approvals.map((approval) => approval.id) }).toEqual({
      status: 200,
      ids: [id],
    });
    expect(listed.problems.map(({ instanceKey, code }) => ({ instanceKey, code }))).toEqual([
      { instanceKey: 'broken', code: 'E_STORE_CORRUPT' },
    ]);
    const answer = (method: string, approval: string) =>
      fetch(`${url}/v1/approvals/${approval}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    const approved = await answer('approve', id);
    expect({ status: approved.status, body: await approved.json() }).toMatchObject({
      status: 200,
      body: { approval: { id, status: 'approved' } },
    });
    // Answered twice, or an id no readable instance holds: a 404 that names what it could not read.
    const twice = await answer('deny', id);
    expect({ status: twice.status, code: codeOf(await twice.text()) }).toEqual({
      status: 404,
      code: 'E_APPROVAL_NOT_FOUND',
    });
    const unknown = await answer('approve', 'apr_nothing_here');
    const unknownBody = (await unknown.json()) as { error: { code: string; message: string } };
    expect({ status: unknown.status, code: unknownBody.error.code }).toEqual({
      status: 404,
      code: 'E_APPROVAL_NOT_FOUND',
    });
    expect(unknownBody.error.message).toContain('could not read helper/broken (E_STORE_CORRUPT)');
    // The approved call ran and the turn ended.
    const replied = async () => {
      const page = await fetch(`${url}/v1/agents/helper/instances/asker/conversation?limit=1`);
      return JSON.stringify(await page.json()).includes('Ran it.');
    };
    expect(await eventually(replied)).toBe(true);
  }, 120_000);

  test('an approval whose database another process is writing is not answered, and not said to be missing', async () => {
    const bash = { toolCalls: [{ name: 'bash__exec', args: { command: 'echo hi' } }] };
    const bundle = await agentBundle(scriptedModel([bash, { text: 'Ran it.' }]));
    const { url } = await serve(bundle);
    await fetch(`${url}/v1/agents/helper/instances/locked/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Run it.' }),
    });
    const pending = async () => {
      const answer = (await (await fetch(`${url}/v1/approvals`)).json()) as { approvals?: { id: string }[] };
      return answer.approvals?.[0]?.id;
    };
    expect(await eventually(async () => (await pending()) !== undefined)).toBe(true);
    const id = (await pending())!;
    const approve = () =>
      fetch(`${url}/v1/approvals/${id}/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    // Another process holds the database's write lock for as long as the answer takes.
    const writer = new Database(
      instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'locked' }).databaseFile,
    );
    writer.run('BEGIN IMMEDIATE');
    writer.run('UPDATE approvals SET reason = reason WHERE 0');
    const blocked = await approve();
    writer.run('ROLLBACK');
    writer.close();
    const body = (await blocked.json()) as { error: { code: string; message: string } };
    expect({ status: blocked.status, code: body.error.code }).toEqual({ status: 500, code: 'E_STORE_OPEN' });
    expect(body.error.message).toContain(`Approval '${id}' of helper/locked could not be answered`);
    // Still pending: answered once the lock is gone.
    const approved = await approve();
    expect({ status: approved.status, body: await approved.json() }).toMatchObject({
      status: 200,
      body: { approval: { id, status: 'approved' } },
    });
  }, 120_000);

  test('an event for its instance is refused, not answered 202 and then dropped', async () => {
    const bundle = await agentBundle();
    const broken = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'broken' });
    mkdirSync(dirname(broken.databaseFile), { recursive: true });
    writeFileSync(broken.databaseFile, 'not a database, not at all, not even close to one');
    const { server, url } = await serve(bundle);
    const send = (instanceKey: string) =>
      fetch(`${url}/v1/agents/helper/instances/${instanceKey}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'Add them up.' }),
      });
    const refused = await send('broken');
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect({ status: refused.status, code: body.error.code }).toEqual({ status: 500, code: 'E_STORE_OPEN' });
    expect(body.error.message).toContain('not a readable SQLite database');
    // Another instance is not held up by it: its event is stored, accepted and handled.
    const accepted = await send('fine');
    expect(accepted.status).toBe(202);
    const replied = async () => {
      const page = await fetch(`${url}/v1/agents/helper/instances/fine/conversation?limit=1`);
      return JSON.stringify(await page.json()).includes('The sum is 5.');
    };
    expect(await eventually(replied)).toBe(true);
    server.proc.kill('SIGTERM');
    expect((await server.finish()).stderr).not.toContain('dropped a send');
  }, 120_000);

  test('a schedule firing into it is retried until it can be stored, not dropped as delivered', async () => {
    const bundle = await agentBundle();
    const broken = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'broken' });
    mkdirSync(dirname(broken.databaseFile), { recursive: true });
    writeFileSync(broken.databaseFile, 'not a database, not at all, not even close to one');
    const { server, url } = await serve(bundle);
    const added = await fetch(`${url}/v1/schedules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'helper', instanceKey: 'broken', inMs: 50, input: 'Add them up.' }),
    });
    expect(added.status).toBe(201);
    await server.waitForStderr('not delivered (E_STORE_OPEN', 60_000);
    // The database is repaired (moved aside, as E_STORE_CORRUPT says): the retry stores the firing and it runs.
    rmSync(broken.databaseFile);
    const replied = async () => {
      const page = await fetch(`${url}/v1/agents/helper/instances/broken/conversation`);
      return page.status === 200 && JSON.stringify(await page.json()).includes('The sum is 5.');
    };
    expect(await eventually(replied, 60_000)).toBe(true);
    expect(server.stderr).not.toContain('dropped a send');
  }, 120_000);
});

describe('gdn trace --serve: bodies, filters and live views', () => {
  test('a body over the limit, of any size, sent or only declared, is the coded 413', async () => {
    const { url } = await traceServe(await copyFixture('agent'));
    const approve = 'POST /v1/approvals/apr_x/approve HTTP/1.1\r\nContent-Type: application/json';
    // Declared and not sent: answered at once (a server that waited for the body would hang here).
    for (const length of [1_500_000, 3_000_000, 4_000_000_000]) {
      const answer = await rawRequest(url, `${approve}\r\nContent-Length: ${length}`, { keepAlive: true });
      expect({ length, status: answer.status, code: codeOf(answer.body) }).toEqual({
        length,
        status: 413,
        code: 'E_SERVE_BODY_TOO_LARGE',
      });
    }
    // Sent in full by a client that does not wait for an answer first (fetch).
    const big = await fetch(`${url}/v1/approvals/apr_x/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"by":"${'x'.repeat(3 * 1024 * 1024)}"}`,
    });
    expect({ status: big.status, code: codeOf(await big.text()) }).toEqual({
      status: 413,
      code: 'E_SERVE_BODY_TOO_LARGE',
    });
  }, 120_000);

  test('every console filter is checked: a bad value or an unknown filter is a 400, good ones answer', async () => {
    const bundle = await copyFixture('agent');
    storeTrace(bundle, 'stored', { status: 'ok' });
    const { url } = await traceServe(bundle);
    const bad = [
      'audit?decision=bogus',
      'audit?agent=nobody',
      'audit?tool=a%20b',
      'audit?limit=0',
      'audit?stauts=ok',
      'audit?decision=allow&decision=deny',
      'traces?status=sleeping',
      'traces?agent=nobody',
      'traces?instance=..%2Fx',
      'traces?tool=calc*',
      'traces?error=nope',
      'traces?since=yesterday',
      'traces?until=12abc',
      'traces?since=2000&until=1000',
      'traces?limit=-1',
      'traces?colour=red',
      'conversation/helper/stored?limit=many',
      'conversation/helper/stored?offset=3',
    ];
    for (const query of bad) {
      const answer = await fetch(`${url}/console/api/${query}`);
      expect({ query, status: answer.status, code: codeOf(await answer.text()) }).toEqual({
        query,
        status: 400,
        code: 'E_SERVE_BAD_REQUEST',
      });
    }
    const good = [
      'audit?decision=refused&agent=helper&tool=bash__*&limit=5',
      'traces?agent=helper&instance=stored&status=ok&tool=calc&error=E_TOOL&since=0&until=2000000000000&limit=5',
      'traces?status=&agent=',
      'conversation/helper/stored?limit=3',
    ];
    for (const query of good) {
      const answer = await fetch(`${url}/console/api/${query}`);
      expect({ query, status: answer.status }).toEqual({ query, status: 200 });
    }
  }, 120_000);

  test('twenty open live views of a running trace cost one poll: each is told of every change, at little CPU', async () => {
    const bundle = await copyFixture('agent');
    // A bundle of many instances, one of them running the watched trace.
    for (let index = 0; index < 60; index += 1) storeTrace(bundle, `idle-${index}`, { status: 'ok' });
    const { traceId, turn } = storeTrace(bundle, 'live', { status: 'running' });
    const { server, url } = await traceServe(bundle);

    const views = await Promise.all(
      Array.from({ length: 20 }, () => openLiveView(`${url}/console/api/traces/${traceId}/live`)),
    );
    try {
      await Promise.all(views.map((view) => view.next()));
      // Five steps of the running turn stored one after another: every view hears of each.
      const cpuBefore = cpuSeconds(server.proc.pid);
      const startedAt = performance.now();
      for (let step = 0; step < 5; step += 1) {
        const heard = views.map((view) => view.next());
        appendSpan(bundle, 'live', {
          ...turn,
          spanId: newSpanId(),
          parentSpanId: turn.spanId,
          kind: 'step',
          name: `step ${step}`,
        });
        await Promise.all(heard);
      }
      const share = (cpuSeconds(server.proc.pid) - cpuBefore) / ((performance.now() - startedAt) / 1000);
      // One poll a view (the way before) opened all 61 databases every 400 ms for each of the 20 views: the server
      // was busy the whole time (share ≈ 1). One poll for all of them opens only the database written to.
      expect(share).toBeLessThan(0.3);
    } finally {
      for (const view of views) view.close();
    }
  }, 120_000);
});

/** Stores a one-span trace (a turn) in instance `instanceKey` of helper; returns its id and span. */
function storeTrace(bundle: string, instanceKey: string, options: { status: SpanRecord['status'] }) {
  const traceId = newTraceId();
  const turn: SpanRecord = {
    traceId,
    spanId: newSpanId(),
    parentSpanId: null,
    kind: 'turn',
    name: 'turn helper',
    startedAt: Date.now() - 1000,
    endedAt: options.status === 'running' ? null : Date.now(),
    status: options.status,
    attributes: { agent: 'helper', instance: instanceKey },
  };
  appendSpan(bundle, instanceKey, turn);
  return { traceId, turn };
}

function appendSpan(bundle: string, instanceKey: string, span: SpanRecord): void {
  const db = openInstanceDatabase(instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey }).databaseFile);
  try {
    new TraceStore(db).recordSpans([span]);
  } finally {
    db.close();
  }
}

/** An open live view: `next()` resolves at its next `change` event. */
async function openLiveView(url: string) {
  const abort = new AbortController();
  const response = await fetch(url, { signal: abort.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next(): Promise<void> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith('event: change')) return;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the live stream ended');
        buffer += value;
      }
    },
    close: () => abort.abort(),
  };
}

/** CPU time (user and system) the process has used, in seconds (Linux /proc; clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
