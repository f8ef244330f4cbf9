import { resolve } from 'node:path';
import type { ApprovalAnswer, OAuthTokenResult } from '@goondan/core';
import { defaultRestartPolicy, environmentBlock, type RestartPolicy, restartDelay } from '@goondan/core';
import type {
  ConnectorApproval,
  ConnectorEvent,
  ConnectorMessage,
  ConnectorReply,
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
  stop(): Promise<void>;
}

/**
 * Runs one connector in a Bun process of its own (docs/connectors.md#processes) and keeps it running: a process
 * that exits is started again after restartDelay (0.2 s doubling to 30 s; back to 0.2 s once it stayed up 10 s),
 * each crash logged as E_CONNECTOR_FAILED. Its environment block holds no secrets; the resolved secrets and config
 * are its first IPC message. `stop()` asks it to stop (its ctx.signal aborts) and kills it after 5 s.
 */
export function superviseConnector(options: {
  start: Extract<HostMessage, { type: 'start' }>;
  cwd: string;
  onEvent(id: string, event: ConnectorEvent): void;
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
        else if (message.type === 'event' && child === process) options.onEvent(message.id, message.event);
        else if (message.type === 'answer-approval') {
          const accepted = child === process && (options.onAnswer?.(message.id, message.answer) ?? false);
          child.send({ type: 'approval-answered', requestId: message.requestId, accepted } satisfies HostMessage);
        } else if (message.type === 'oauth-token') {
          void answerToken(message.request).then((result) => {
            try {
              child.send({ type: 'oauth-token-answered', requestId: message.requestId, result } satisfies HostMessage);
            } catch {
              // Gone meanwhile: nobody waits for the answer.
            }
          });
        }
      },
    });
    process = child;
    child.send(options.start satisfies HostMessage);
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
    approval(approval) {
      try {
        process?.send({ type: 'approval', approval } satisfies HostMessage);
      } catch {
        // Gone meanwhile: it is restarted, and the approval can still be answered elsewhere.
      }
    },
    granted(oauthApp) {
      try {
        process?.send({ type: 'oauth-granted', oauthApp } satisfies HostMessage);
      } catch {
        // Gone meanwhile: the next token request finds the grant anyway.
      }
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
