import { resolve } from 'node:path';
import type { ApprovalAnswer, OAuthTokenResult } from '@goondan/core';
import { defaultRestartPolicy, environmentBlock, type RestartPolicy, restartDelay } from '@goondan/core';
import type {
  ConnectorApproval,
  ConnectorEvent,
  ConnectorMessage,
  ConnectorReply,
  EventRefusal,
  HostMessage,
} from './connector-types.ts';

const runnerPath = resolve(import.meta.dir, 'connector-runner.ts');
/** How long a stopped connector may take to close before it is killed. */
const STOP_GRACE_MS = 5_000;

export interface SupervisedConnector {
  /** The running process, if any. */
  pid(): number | null;
  /** Resolves at the first `ready` (its entry imported and called). */
  ready: Promise<void>;
  /** Hands the agent's reply to the process that emitted the event (dropped if it has restarted since). */
  reply(id: string, reply: ConnectorReply): void;
  /** Shows the running process an approval of a turn its event started (or how it ended). */
  approval(approval: ConnectorApproval): void;
  /** Tells the running process an authorization it asked for was granted. */
  granted(oauthApp: string): void;
  /** Tells the process (and any it is restarted as) that no more events are taken: it stops taking input. */
  quiesce(): void;
  stop(): Promise<void>;
}

/**
 * Runs one connector in a Bun process of its own (docs/connectors.md#processes) and keeps it running: a process
 * that exits is started again after restartDelay (0.2 s doubling to 30 s; back to 0.2 s once it stayed up 10 s),
 * each crash logged as E_CONNECTOR_FAILED. Its environment block holds no secrets; the resolved secrets and config
 * are its first IPC message. Each event it emits is answered with what `onEvent` says (taken, or refused), so its
 * ctx.emit settles. `stop()` asks it to stop (its ctx.signal aborts) and kills it after 5 s.
 */
export function superviseConnector(options: {
  start: Extract<HostMessage, { type: 'start' }>;
  cwd: string;
  /** Routes an event of the running process: nothing when the host took it, else why not (the connector is told). */
  onEvent(id: string, event: ConnectorEvent): EventRefusal | undefined;
  /** A person's answer to an approval, from the connector: true when it reached the waiting instance. */
  onAnswer?(id: string, answer: ApprovalAnswer): boolean;
  /** A token request of the connector (its fields unchecked: they come from the connector's code). */
  onTokenRequest?(request: unknown): Promise<OAuthTokenResult>;
  log(line: string): void;
  policy?: RestartPolicy;
}): SupervisedConnector {
  const policy = options.policy ?? defaultRestartPolicy;
  const label = `[connection ${options.start.connection}]`;
  let process: ReturnType<typeof Bun.spawn> | null = null;
  let stopping = false;
  let quiesced = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ready = Promise.withResolvers<void>();
  const answerToken = async (request: unknown): Promise<OAuthTokenResult> => {
    try {
      if (!options.onTokenRequest) throw new Error('this host answers no token requests');
      return await options.onTokenRequest(request);
    } catch (thrown) {
      const code = (thrown as { code?: unknown } | null)?.code;
      return {
        status: 'error',
        error: {
          code: typeof code === 'string' && code.startsWith('E_') ? code : 'E_OAUTH_UNAVAILABLE',
          message: thrown instanceof Error ? thrown.message : String(thrown),
          suggestion:
            (thrown as { suggestion?: string } | null)?.suggestion ??
            'Declare the OAuthApp in the bundle; gdn serve opens the OAuth host when one exists.',
        },
      };
    }
  };

  /** Sends to one process; one gone meanwhile is restarted (or was stopped), and nobody waits for the message. */
  const tell = (child: ReturnType<typeof Bun.spawn>, message: HostMessage) => {
    try {
      child.send(message);
    } catch {
      // Gone meanwhile.
    }
  };

  const spawn = () => {
    const startedAt = Date.now();
    const child = Bun.spawn([globalThis.process.execPath, runnerPath], {
      cwd: options.cwd,
      env: environmentBlock(),
      stdin: 'inherit',
      stdout: 'inherit',
      stderr: 'inherit',
      serialization: 'json',
      ipc: (raw) => {
        const message = raw as ConnectorMessage;
        if (message.type === 'ready') ready.resolve();
        else if (message.type === 'event') {
          // A process being replaced or stopped takes no more events: what it emits now stays with the platform.
          const refused =
            child === process && !stopping
              ? options.onEvent(message.id, message.event)
              : { code: 'E_AGENT_SHUTTING_DOWN', message: 'the connector is stopping' };
          tell(child, { type: 'event-answered', id: message.id, ...(refused ? { refused } : {}) });
        } else if (message.type === 'answer-approval') {
          const accepted = child === process && (options.onAnswer?.(message.id, message.answer) ?? false);
          child.send({ type: 'approval-answered', requestId: message.requestId, accepted } satisfies HostMessage);
        } else if (message.type === 'oauth-token') {
          void answerToken(message.request).then((result) =>
            tell(child, { type: 'oauth-token-answered', requestId: message.requestId, result }),
          );
        }
      },
    });
    process = child;
    child.send(options.start satisfies HostMessage);
    if (quiesced) tell(child, { type: 'quiesce' });
    void child.exited.then((code) => {
      if (process === child) process = null;
      if (stopping) return;
      attempt = Date.now() - startedAt >= policy.stableAfterMs ? 1 : attempt + 1;
      const delay = restartDelay(attempt, policy);
      const how = child.signalCode ? `was killed (${child.signalCode})` : `exited with code ${code}`;
      options.log(`${label} E_CONNECTOR_FAILED connector ${options.start.connector} ${how}; restarting in ${delay} ms`);
      timer = setTimeout(spawn, delay);
    });
  };
  spawn();

  return {
    pid: () => process?.pid ?? null,
    ready: ready.promise,
    reply(id, reply) {
      if (!id.startsWith(`cev_${process?.pid}_`)) return;
      process?.send({ type: 'reply', id, reply } satisfies HostMessage);
    },
    // A process gone meanwhile is restarted: the approval can still be answered elsewhere, and its next token
    // request finds the grant anyway.
    approval(approval) {
      if (process) tell(process, { type: 'approval', approval });
    },
    granted(oauthApp) {
      if (process) tell(process, { type: 'oauth-granted', oauthApp });
    },
    quiesce() {
      quiesced = true;
      if (process) tell(process, { type: 'quiesce' });
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      const child = process;
      if (!child) return;
      try {
        child.send({ type: 'stop' } satisfies HostMessage);
      } catch {
        // Already gone.
      }
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await child.exited;
      clearTimeout(killer);
    },
  };
}
