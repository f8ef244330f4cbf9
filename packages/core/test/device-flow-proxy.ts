/** What a token request got from the proxy: passed to the real server, a 503 page, or no answer at all. */
export type TokenAnswer = 'forward' | 'unavailable' | 'hang';

/**
 * An HTTP stand-in in front of a real authorization server (on 127.0.0.1) for the device flow: it forwards every
 * request, makes the device authorization answer name a short `interval` (and `expires_in`) so a test polls fast,
 * and answers token requests as planned: a 503 page as a gateway whose server is down, or nothing.
 */
export interface DeviceFlowProxy {
  /** `http://127.0.0.1:PORT`: append the real server's paths (`/device/auth`, `/token`). */
  origin: string;
  /** The answers to the next token requests, in order; after them, requests are forwarded. */
  plan(...answers: TokenAnswer[]): void;
  /** Every token request from now on gets `answer`. */
  always(answer: TokenAnswer): void;
  /** The token requests so far: when each came (Date.now()) and what it got. */
  tokenRequests: { at: number; answer: TokenAnswer }[];
  /** Settles once `count` token requests have got `answer`. */
  waitForTokenRequests(count: number, answer: TokenAnswer): Promise<void>;
  /** Stops listening: a connection to the port is refused until up(). */
  down(): Promise<void>;
  /** Listens again, on the same port. */
  up(): void;
  close(): Promise<void>;
}

export function startDeviceFlowProxy(
  target: string,
  options: { intervalSeconds?: number; expiresInSeconds?: number } = {},
): DeviceFlowProxy {
  const planned: TokenAnswer[] = [];
  let standing: TokenAnswer = 'forward';
  const tokenRequests: DeviceFlowProxy['tokenRequests'] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<() => void>();

  const forward = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete('host');
    const answer = await fetch(new URL(url.pathname + url.search, target), {
      method: request.method,
      headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer(),
      redirect: 'manual',
    });
    const out = new Headers(answer.headers);
    for (const name of ['content-length', 'content-encoding', 'transfer-encoding']) out.delete(name);
    let body = await answer.text();
    if (url.pathname === '/device/auth' && answer.ok) {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (options.intervalSeconds !== undefined) parsed.interval = options.intervalSeconds;
      if (options.expiresInSeconds !== undefined) parsed.expires_in = options.expiresInSeconds;
      body = JSON.stringify(parsed);
    }
    return new Response(body, { status: answer.status, statusText: answer.statusText, headers: out });
  };

  const handle = async (request: Request): Promise<Response> => {
    if (new URL(request.url).pathname !== '/token') return forward(request);
    const answer = planned.shift() ?? standing;
    tokenRequests.push({ at: Date.now(), answer });
    for (const wake of waiters) wake();
    if (answer === 'unavailable')
      return new Response('<html><body>503 Service Unavailable</body></html>', {
        status: 503,
        statusText: 'Service Unavailable',
        headers: { 'content-type': 'text/html' },
      });
    if (answer === 'hang') {
      // Held until the client gives up (its abort closes the connection) or the proxy closes.
      await new Promise<void>((resolve) => {
        hanging.add(resolve);
        request.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return new Response('', { status: 504 });
    }
    return forward(request);
  };

  const listen = (port: number) => Bun.serve({ hostname: '127.0.0.1', port, idleTimeout: 0, fetch: handle });
  let server = listen(0);
  const port = server.port!;
  return {
    origin: `http://127.0.0.1:${port}`,
    plan: (...answers) => planned.push(...answers),
    always(answer) {
      planned.length = 0;
      standing = answer;
    },
    tokenRequests,
    waitForTokenRequests(count, answer) {
      const reached = () => tokenRequests.filter((request) => request.answer === answer).length >= count;
      if (reached()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          if (!reached()) return;
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    },
    async down() {
      await server.stop(true);
    },
    up() {
      server = listen(port);
    },
    async close() {
      for (const resolve of hanging) resolve();
      await server.stop(true);
    },
  };
}
