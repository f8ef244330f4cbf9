import type { AgentEvent, Bundle, OAuthHost, Orchestrator } from '@goondan/core';
import { printable } from './terminal.ts';

/** A grant's `auth.granted`, sent to the live agent instance that asked for it (spec v1 §12.6.4.5). */
export function sendGrant(
  orchestrator: Pick<Orchestrator, 'send'>,
  event: AgentEvent,
  requester: { agentName: string; instanceKey: string },
): void {
  orchestrator.send({
    type: event.type,
    input: event.input,
    target: requester.agentName,
    instanceKey: requester.instanceKey,
    source: event.source,
    ...(event.data === undefined ? {} : { data: event.data }),
  });
}

const reopenedLine = (path: string) =>
  `OAuth store ${path} was deleted or replaced while running; opened it again at its path (grants it held are gone: gdn auth login again; new ones are stored there)`;

export interface BundleOAuth {
  host: OAuthHost;
  /** Stops the callback servers and closes the store. */
  close(): Promise<void>;
}

/**
 * The OAuth host of a command that runs agents (`gdn run`, `gdn chat`; docs/oauth.md#one-writer): opened only when
 * the bundle declares an OAuthApp (no key file is made otherwise). This process owns the store, serves the loopback
 * callbacks, and is this process's OAuth service (in-process agents call it directly; agent processes of a swarm
 * ask it over IPC through the Orchestrator's `oauth` option). A callback port already taken (another gdn holds it)
 * is reported on stderr and the run goes on: tokens already granted still work.
 */
export async function openBundleOAuth(
  bundle: Bundle,
  options: {
    onGranted?: (event: AgentEvent, requester: { agentName: string; instanceKey: string }) => void;
    /** The line said when `.goondan/oauth.db` was deleted under this process and opened again (default: plain). */
    storeReopenedLine?: (path: string) => string;
  } = {},
): Promise<BundleOAuth | null> {
  if (![...bundle.resources.values()].some((resource) => resource.kind === 'OAuthApp')) return null;
  // Imported here: only a bundle with an OAuthApp needs the OAuth modules (and the whole core API they come with).
  const { openOAuthHost, provideOAuthService, serveOAuthCallbacks } = await import('@goondan/core');
  const host = openOAuthHost({
    bundle,
    ...(options.onGranted ? { onGranted: options.onGranted } : {}),
    onDevicePollRetry: (retry) => process.stderr.write(`${printable(retry.message)}\n`),
    // Deleted while this process runs (rm -rf .goondan): a grant saved from now on is kept in the new file.
    onStoreReopened: (path) =>
      process.stderr.write(`${printable((options.storeReopenedLine ?? reopenedLine)(path))}\n`),
  });
  let callbacks: { stop(): Promise<void> } | null = null;
  try {
    callbacks = serveOAuthCallbacks({ bundle, host });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // The error may quote the bundle's redirectUri: without its control characters.
    process.stderr.write(
      `OAuth callbacks are not served here (${printable(reason)}); use gdn auth login to authorize.\n`,
    );
  }
  provideOAuthService(host);
  return {
    host,
    async close() {
      provideOAuthService(undefined);
      await callbacks?.stop();
      host.store.close();
    },
  };
}
