/**
 * A fake Telegram Bot API server on 127.0.0.1 for tests: it speaks the HTTP Bot API
 * (`POST /bot<token>/<method>`, JSON or form bodies, `{ ok, result }` / `{ ok: false, error_code, description }`),
 * queues the updates a test pushes, answers getUpdates with offset and a real long poll, and records every call.
 */
export interface RecordedCall {
  method: string;
  payload: Record<string, unknown>;
  at: number;
  /** The status this server answered with. */
  status: number;
  /** The `result` it answered with (a sent message's message_id). */
  result?: unknown;
}

interface Update {
  update_id: number;
  [key: string]: unknown;
}

export interface FakeBotApi {
  apiRoot: string;
  calls: RecordedCall[];
  /** A private-chat text message from the user whose id is the chat id. */
  pushMessage(chatId: number, text: string): number;
  /** A button press under the bot's message `messageId`. */
  pushCallback(chatId: number, messageId: number, data: string): string;
  /** A message without text (a sticker). */
  pushSticker(chatId: number): void;
  /** The next `times` calls of `method` fail with this Bot API error. */
  failNext(
    method: string,
    error: { error_code: number; description: string; retry_after?: number },
    times?: number,
  ): void;
  callsOf(method: string, chatId?: number): RecordedCall[];
  /** Waits until `predicate` holds for the recorded calls (polled every 10 ms). */
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export function startFakeBotApi(options: { token: string }): FakeBotApi {
  const calls: RecordedCall[] = [];
  const updates: Update[] = [];
  const waiters = new Set<() => void>();
  const failures = new Map<
    string,
    { error: { error_code: number; description: string; retry_after?: number }; times: number }
  >();
  let nextUpdateId = 1;
  let nextMessageId = 1000;

  const push = (update: Record<string, unknown>) => {
    updates.push({ update_id: nextUpdateId++, ...update });
    for (const wake of waiters) wake();
  };
  const chat = (id: number) => ({ id, type: id < 0 ? 'group' : 'private', first_name: `user${id}` });
  const user = (id: number) => ({
    id: Math.abs(id),
    is_bot: false,
    first_name: `user${id}`,
    username: `user${Math.abs(id)}`,
  });

  const pending = (offset: number) => {
    while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift();
    return updates.slice();
  };

  async function getUpdates(payload: Record<string, unknown>, signal: AbortSignal): Promise<Update[]> {
    const offset = Number(payload.offset ?? 0);
    const timeout = Number(payload.timeout ?? 0);
    let found = pending(offset);
    if (found.length > 0 || timeout <= 0) return found;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeout * 1000);
      waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
    found = pending(offset);
    return found;
  }

  function result(method: string, payload: Record<string, unknown>): unknown {
    switch (method) {
      case 'getMe':
        return { id: 7, is_bot: true, first_name: 'Test Bot', username: 'test_bot', can_join_groups: true };
      case 'sendMessage':
        return { message_id: nextMessageId++, date: 0, chat: chat(Number(payload.chat_id)), text: payload.text };
      case 'editMessageText':
        return {
          message_id: Number(payload.message_id),
          date: 0,
          chat: chat(Number(payload.chat_id)),
          text: payload.text,
        };
      default:
        return true;
    }
  }

  async function readPayload(request: Request): Promise<Record<string, unknown>> {
    const type = request.headers.get('content-type') ?? '';
    if (type.includes('application/json')) return (await request.json()) as Record<string, unknown>;
    if (type.includes('form')) {
      const form = await request.formData();
      return Object.fromEntries([...form.entries()].map(([key, value]) => [key, parseField(String(value))]));
    }
    return {};
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(request.url).pathname);
      if (!match) return Response.json({ ok: false, error_code: 404, description: 'Not Found' }, { status: 404 });
      const [, token, method] = match as unknown as [string, string, string];
      const payload = await readPayload(request);
      const record = (status: number, answer?: unknown) =>
        calls.push({ method, payload, at: Date.now(), status, result: answer });
      if (token !== options.token) {
        record(401);
        return Response.json({ ok: false, error_code: 401, description: 'Unauthorized' }, { status: 401 });
      }
      const failure = failures.get(method);
      if (failure && failure.times > 0) {
        failure.times -= 1;
        record(failure.error.error_code);
        const { retry_after, ...error } = failure.error;
        const parameters = retry_after === undefined ? {} : { parameters: { retry_after } };
        return Response.json({ ok: false, ...error, ...parameters }, { status: failure.error.error_code });
      }
      if (method === 'getUpdates') {
        const found = await getUpdates(payload, request.signal);
        record(200);
        return Response.json({ ok: true, result: found });
      }
      const answer = result(method, payload);
      record(200, answer);
      return Response.json({ ok: true, result: answer });
    },
  });

  return {
    apiRoot: `http://127.0.0.1:${server.port}`,
    calls,
    pushMessage(chatId, text) {
      const messageId = nextMessageId++;
      push({ message: { message_id: messageId, date: 0, chat: chat(chatId), from: user(chatId), text } });
      return messageId;
    },
    pushCallback(chatId, messageId, data) {
      const id = `cb${nextUpdateId}`;
      push({
        callback_query: {
          id,
          from: user(chatId),
          chat_instance: String(chatId),
          data,
          message: { message_id: messageId, date: 0, chat: chat(chatId), text: '' },
        },
      });
      return id;
    },
    pushSticker(chatId) {
      const sticker = { file_id: 's', file_unique_id: 's', type: 'regular', width: 1, height: 1, is_animated: false };
      push({ message: { message_id: nextMessageId++, date: 0, chat: chat(chatId), from: user(chatId), sticker } });
    },
    failNext(method, error, times = 1) {
      failures.set(method, { error, times });
    },
    callsOf(method, chatId) {
      return calls.filter(
        (call) =>
          call.method === method &&
          call.status === 200 &&
          (chatId === undefined || Number(call.payload.chat_id) === chatId),
      );
    },
    async waitFor(predicate, what, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}; calls: ${JSON.stringify(calls.map((call) => call.method))}`);
        await Bun.sleep(10);
      }
    },
    async stop() {
      for (const wake of waiters) wake();
      await server.stop(true);
    },
  };
}

/** Form fields that hold JSON (reply_markup) are decoded; others stay strings. */
function parseField(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
