import type { ApprovalAnswer, ApprovalRecord, ConnectorResourceSpec, OAuthTokenResult } from '@goondan/core';

/** A property value of a connector event (its type is declared in the Connector's spec.events). */
export type EventPropertyValue = string | number | boolean;

/**
 * A normalised event a connector emits (docs/connectors.md): its declared name, the text for the agent, and typed
 * properties the Connection's ingress rules match on and take instance keys from.
 */
export interface ConnectorEvent {
  name: string;
  message?: { type: 'text'; text: string };
  properties?: Record<string, EventPropertyValue>;
}

/** The agent's answer to an event, handed back to the connector that emitted it (addition: docs/connectors.md#replies). */
export interface ConnectorReply {
  /** The event it answers, as emitted. */
  event: ConnectorEvent;
  /** The reply text of the turn (empty when the turn ended without one). */
  text: string;
  /** The turn's status: completed, failed, max_steps, … */
  status: string;
  agent: string;
  instanceKey: string;
}

/**
 * A tool call waiting for a person's approval in a turn this connector's event started (or in an agent that turn
 * called), and later how it ended (docs/connectors.md#approvals).
 */
export interface ConnectorApproval {
  /** `requested`: it waits; `resolved`: it was answered, expired or cancelled (record.status says which). */
  phase: 'requested' | 'resolved';
  record: ApprovalRecord;
  /** The event whose turn asked, as emitted (say, its chat). */
  event: ConnectorEvent;
}

export type ConnectorLogger = Pick<Console, 'info' | 'warn' | 'error'>;

/** A connector's token request (docs/connectors.md#oauth): the host asks its OAuth service in the Connection's name. */
export interface ConnectorTokenRequest {
  /** `OAuthApp/<name>` or `<name>`. */
  oauthAppRef: string;
  /** A subset of the app's scopes; default all of them. */
  scopes?: string[];
  /** Refresh first when the token expires sooner than this (default 60). */
  minTtlSeconds?: number;
  /** For `subjectMode: user` apps: whose grant (say, the Slack user the event came from). */
  userId?: string;
}

/** The OAuth service as a connector reaches it, in its own process (answered by the host). */
export interface ConnectorOAuth {
  /**
   * `ready` with the token (masked in this connector's log lines from then on), `authorization_required` with
   * where a person authorizes, or `error` (E_OAUTH_UNAVAILABLE when the bundle declares no OAuthApp). Never throws.
   */
  getAccessToken(request: ConnectorTokenRequest): Promise<OAuthTokenResult>;
  /** Told when an authorization this connector asked for is granted (the next getAccessToken is ready). */
  onGranted(handler: (grant: { oauthApp: string }) => void | Promise<void>): void;
}

/** What a connector's default export receives, in its own process. */
export interface ConnectorContext {
  /** The Connection that runs this connector, and the Connector's name. */
  connection: string;
  connector: string;
  /** The Connection's `secrets`, resolved (never logged: the logger masks them). */
  secrets: Readonly<Record<string, string>>;
  /** The Connection's `config`, resolved. */
  config: Readonly<Record<string, string>>;
  /**
   * Sends an event to the host, which routes it by the Connection's ingress rules. Resolves once the host has taken
   * it (confirm it to the platform then, not before); rejects E_CONNECTOR_EVENT_INVALID, or E_AGENT_SHUTTING_DOWN
   * when the host does not take it (it is shutting down, the connector is stopping, the host is gone): leave such
   * an event unconfirmed, so the platform delivers it again.
   */
  emit(event: ConnectorEvent): Promise<void>;
  /** Receives the agent's reply to each emitted event (optional: connectors that only push events ignore it). */
  onReply(handler: (reply: ConnectorReply) => void | Promise<void>): void;
  /** Receives the approvals of turns its events started (optional: only connectors that can ask a person use it). */
  onApproval(handler: (approval: ConnectorApproval) => void | Promise<void>): void;
  /**
   * Answers an approval it was shown (by onApproval); resolves false when it is not waiting any more, or was not
   * shown to this connector.
   */
  answerApproval(id: string, answer: ApprovalAnswer): Promise<boolean>;
  /** Tokens of the bundle's OAuthApps (spec §12.6), asked of the host, which owns the OAuth store. */
  oauth: ConnectorOAuth;
  logger: ConnectorLogger;
  /**
   * Aborted when the host takes no more events (it is shutting down, or stops this connector): stop taking input
   * and leave what arrives with the platform (emit rejects E_AGENT_SHUTTING_DOWN from then on). Replies of turns
   * already taken still come, until `signal` aborts.
   */
  quiesced: AbortSignal;
  /** Aborted when the host stops the connector: close servers and timers. */
  signal: AbortSignal;
}

/** A connector module's default export. */
export type ConnectorMain = (ctx: ConnectorContext) => void | Promise<void>;

export type DeclaredEvents = NonNullable<ConnectorResourceSpec['events']>;

/** Why the host did not take an event: E_AGENT_SHUTTING_DOWN (emit it again later) or E_CONNECTOR_EVENT_INVALID. */
export interface EventRefusal {
  code: string;
  message: string;
}

/** Host → connector process. */
export type HostMessage =
  | {
      type: 'start';
      connection: string;
      connector: string;
      entry: string;
      events: DeclaredEvents | null;
      secrets: Record<string, string>;
      config: Record<string, string>;
    }
  /** The host's answer to an `event`: taken (no `refused`), or refused with a code (E_AGENT_SHUTTING_DOWN, …). */
  | { type: 'event-answered'; id: string; refused?: EventRefusal }
  /** The host takes no more events (shutdown): the connector stops taking input; replies still come. */
  | { type: 'quiesce' }
  | { type: 'reply'; id: string; reply: ConnectorReply }
  | { type: 'approval'; approval: ConnectorApproval }
  | { type: 'approval-answered'; requestId: number; accepted: boolean }
  | { type: 'oauth-token-answered'; requestId: number; result: OAuthTokenResult }
  | { type: 'oauth-granted'; oauthApp: string }
  | { type: 'stop' };

/** Connector process → host. */
export type ConnectorMessage =
  | { type: 'ready' }
  | { type: 'event'; id: string; event: ConnectorEvent }
  | { type: 'answer-approval'; requestId: number; id: string; answer: ApprovalAnswer }
  | { type: 'oauth-token'; requestId: number; request: ConnectorTokenRequest };
