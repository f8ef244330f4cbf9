// The process of one connector (docs/connectors.md#processes), started by the host with an IPC channel:
// `bun connector-runner.ts`. Its environment holds no secrets; the first IPC message carries the Connection's
// resolved secrets and config. It imports the Connector's entry and calls its default export with a
// ConnectorContext; events go to the host over IPC, each answered taken or refused (ctx.emit settles then), and
// replies come back the same way. `quiesce` (shutdown) aborts ctx.quiesced: emit is refused from then on, so the
// connector leaves new input with the platform. `stop` aborts ctx.signal and the process exits once the default
// export has returned (or after a short grace); signals sent to the whole process group (Ctrl-C) are left to the
// host, which stops it that way.

import type { OAuthTokenResult } from '@goondan/core';
import { checkConnectorEvent } from './check-connector-event.ts';
import type {
  ConnectorApproval,
  ConnectorContext,
  ConnectorMain,
  ConnectorReply,
  EventRefusal,
  HostMessage,
} from './connector-types.ts';

const STOP_GRACE_MS = 3_000;
/** Of it, how long replies handed over before the stop may take with the connector's signal still live. */
const REPLY_GRACE_MS = 2_000;

function mask(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) if (secret.length >= 4) masked = masked.replaceAll(secret, '***');
  return masked;
}

// No @goondan/core here: its import would cost every connector seconds of start-up on a busy machine.
function describe(thrown: unknown): string {
  const code = (thrown as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('E_')) return `${code} ${(thrown as Error).message}`;
  return thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
}

const send = (message: unknown) => process.send?.(message);
/** A refusal as ctx.emit rejects with it: an Error with the code (the runner logs `CODE message`). */
const refusal = ({ code, message }: EventRefusal) => Object.assign(new Error(message), { code });
const shuttingDown = (why: string) =>
  refusal({
    code: 'E_AGENT_SHUTTING_DOWN',
    message: `the event was not taken: ${why}; leave it with the platform, which delivers it again`,
  });
const replyHandlers: ((reply: ConnectorReply) => void | Promise<void>)[] = [];
const approvalHandlers: ((approval: ConnectorApproval) => void | Promise<void>)[] = [];
const answers = new Map<number, (accepted: boolean) => void>();
const grantHandlers: ((grant: { oauthApp: string }) => void | Promise<void>)[] = [];
const tokenAnswers = new Map<number, (result: OAuthTokenResult) => void>();
/** Events sent to the host and not answered yet: each emit waits for the host to take (or refuse) its event. */
const emits = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
/** The Connection's secrets and every token handed to this connector: masked in its log lines. */
const secrets: string[] = [];
/** Reply and approval handlers still running: a stop waits for them (a reply being sent is delivered). */
const handling = new Set<Promise<void>>();
const quiescing = new AbortController();
const stopping = new AbortController();
let running: Promise<void> = Promise.resolve();
let nextId = 1;

async function start(message: Extract<HostMessage, { type: 'start' }>): Promise<void> {
  secrets.push(...Object.values(message.secrets));
  const line = (...parts: unknown[]) =>
    mask(parts.map((part) => (typeof part === 'string' ? part : describe(part))).join(' '), secrets);
  const prefix = `[connector ${message.connector}]`;
  const logger = {
    info: (...parts: unknown[]) => console.error(prefix, line(...parts)),
    warn: (...parts: unknown[]) => console.error(prefix, line(...parts)),
    error: (...parts: unknown[]) => console.error(prefix, line(...parts)),
  };
  const ctx: ConnectorContext = {
    connection: message.connection,
    connector: message.connector,
    secrets: Object.freeze({ ...message.secrets }),
    config: Object.freeze({ ...message.config }),
    emit(event) {
      const checked = checkConnectorEvent(event, message.events);
      if (quiescing.signal.aborted) return Promise.reject(shuttingDown('gdn serve takes no more events'));
      if (!process.connected) return Promise.reject(shuttingDown('gdn serve is gone'));
      const id = `cev_${process.pid}_${nextId++}`;
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      emits.set(id, { resolve, reject });
      send({ type: 'event', id, event: checked });
      return promise;
    },
    onReply(handler) {
      replyHandlers.push(handler);
    },
    onApproval(handler) {
      approvalHandlers.push(handler);
    },
    answerApproval(id, answer) {
      const requestId = nextId++;
      const { promise, resolve } = Promise.withResolvers<boolean>();
      answers.set(requestId, resolve);
      send({ type: 'answer-approval', requestId, id, answer });
      return promise;
    },
    oauth: {
      getAccessToken(request) {
        if (stopping.signal.aborted) return Promise.resolve(stoppedAnswer());
        const requestId = nextId++;
        const { promise, resolve } = Promise.withResolvers<OAuthTokenResult>();
        tokenAnswers.set(requestId, resolve);
        send({ type: 'oauth-token', requestId, request });
        return promise;
      },
      onGranted(handler) {
        grantHandlers.push(handler);
      },
    },
    logger,
    quiesced: quiescing.signal,
    signal: stopping.signal,
  };
  let main: unknown;
  try {
    main = ((await import(message.entry)) as { default?: unknown }).default;
  } catch (thrown) {
    logger.error(`E_CONNECTOR_FAILED importing ${message.entry} failed: ${describe(thrown)}`);
    process.exit(1);
  }
  if (typeof main !== 'function') {
    logger.error(
      `E_CONNECTOR_FAILED ${message.entry} has no default export function (export default async function (ctx) { ... })`,
    );
    process.exit(1);
  }
  running = Promise.resolve()
    .then(() => (main as ConnectorMain)(ctx))
    .catch((thrown) => {
      if (stopping.signal.aborted) return;
      // An emit the host refused at shutdown, not caught: the connector ends its input, and replies still come.
      if (quiescing.signal.aborted && (thrown as { code?: unknown } | null)?.code === 'E_AGENT_SHUTTING_DOWN') {
        logger.warn(describe(thrown));
        return;
      }
      logger.error(`E_CONNECTOR_FAILED ${describe(thrown)}`);
      process.exit(1);
    });
  // Ready once the default export has begun and not failed at once (a missing secret, a bad config), so the host
  // does not report a connector running that is about to exit.
  setImmediate(() => send({ type: 'ready' }));
}

/** What a token request gets once the connector is stopping (the host no longer answers). */
function stoppedAnswer(): OAuthTokenResult {
  return {
    status: 'error',
    error: {
      code: 'E_AGENT_SHUTTING_DOWN',
      message: 'The connector is stopping; no token was asked for.',
      suggestion: 'Ask again once gdn serve runs the connector again.',
    },
  };
}

/** Every emit still waiting is refused (the host will not answer it any more). */
function refuseWaitingEmits(why: string): void {
  for (const { reject } of emits.values()) reject(shuttingDown(why));
  emits.clear();
}

/** Runs handlers of one message, each on its own: one that throws is logged and the others still run. */
function dispatch<T>(handlers: ((value: T) => void | Promise<void>)[], value: T, what: string): void {
  for (const handler of handlers) {
    const run: Promise<void> = Promise.resolve()
      .then(() => handler(value))
      // Masked as ctx.logger's lines are: a handler's error may quote a secret of the Connection or a token.
      .catch((thrown) => console.error(mask(`[connector] ${what} handler failed: ${describe(thrown)}`, secrets)))
      .finally(() => handling.delete(run));
    handling.add(run);
  }
}

process.on('message', (raw) => {
  const message = raw as HostMessage;
  if (message.type === 'start') void start(message);
  else if (message.type === 'event-answered') {
    const waiting = emits.get(message.id);
    emits.delete(message.id);
    const { refused } = message;
    if (refused)
      waiting?.reject(refused.code === 'E_AGENT_SHUTTING_DOWN' ? shuttingDown(refused.message) : refusal(refused));
    else waiting?.resolve();
  }
  // Events sent before this still get their answers (the host answers each one it received).
  else if (message.type === 'quiesce') quiescing.abort();
  else if (message.type === 'reply') dispatch(replyHandlers, message.reply, 'a reply');
  else if (message.type === 'approval') dispatch(approvalHandlers, message.approval, 'an approval');
  else if (message.type === 'approval-answered') {
    answers.get(message.requestId)?.(message.accepted);
    answers.delete(message.requestId);
  } else if (message.type === 'oauth-token-answered') {
    if (message.result.status === 'ready') secrets.push(message.result.accessToken);
    tokenAnswers.get(message.requestId)?.(message.result);
    tokenAnswers.delete(message.requestId);
  } else if (message.type === 'oauth-granted') {
    dispatch(grantHandlers, { oauthApp: message.oauthApp }, 'a grant');
  } else if (message.type === 'stop') {
    quiescing.abort();
    refuseWaitingEmits('the connector is stopping');
    for (const resolve of answers.values()) resolve(false);
    for (const resolve of tokenAnswers.values()) resolve(stoppedAnswer());
    tokenAnswers.clear();
    // Replies handed over before the stop are delivered first (the host stops connectors after the drain), with
    // ctx.signal still live: a reply's request uses it, and aborting it at once cut short the POST of a reply that
    // came just before the stop (the turn's answer never reached the platform). Then the connector is told to stop.
    const replies = Promise.all([...handling]);
    void Promise.race([replies, Bun.sleep(REPLY_GRACE_MS)])
      .then(() => {
        stopping.abort();
        return Promise.race([Promise.all([running, ...handling]), Bun.sleep(STOP_GRACE_MS - REPLY_GRACE_MS)]);
      })
      .then(() => process.exit(0));
  }
});
// The host is gone (it crashed or was killed): nothing would route this connector's events any more.
process.on('disconnect', () => {
  refuseWaitingEmits('gdn serve is gone');
  process.exit(0);
});
// A Ctrl-C at the terminal (SIGINT), the terminal closing (SIGHUP) or a service manager stopping the whole group
// (SIGTERM) reach this process as well as the host. The host stops it once the running turns' replies are handed
// over (a `stop` message), and a host that dies disconnects it: dying at the signal would lose those replies.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM'] as const) process.on(signal, () => {});
