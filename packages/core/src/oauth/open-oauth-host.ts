import { join } from 'node:path';
import type { AgentEvent } from '../agent/agent-event.ts';
import { instancePaths } from '../agent/instance-paths.ts';
import type { Bundle } from '../config/resources.ts';
import { InboxStore } from '../store/inbox-store.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { createOAuthHost, type OAuthHost } from './oauth-host.ts';
import { OAuthStore } from './oauth-store.ts';
import type { DevicePollRetry } from './poll-device-authorization.ts';
import { resolveOAuthKey } from './resolve-oauth-key.ts';

/**
 * The OAuth host of a bundle as `gdn run`, `gdn chat` and `gdn auth` open it: the store in
 * `<stateDir>/oauth.db` (default `<bundle>/.goondan`), the key from resolveOAuthKey, and `auth.granted` events put
 * into the inbox of the agent instance that asked, which handles them as its next input.
 */
export function openOAuthHost(options: {
  bundle: Bundle;
  stateDir?: string;
  /** Delivers `auth.granted` instead of the inbox write (a running orchestrator routes it to the live process). */
  onGranted?: (event: AgentEvent, requester: { agentName: string; instanceKey: string }) => void;
  /** Told of every device-code poll that failed for a reason that may pass and is retried (`message` is a log line). */
  onDevicePollRetry?: (retry: DevicePollRetry) => void;
  /** Told when `oauth.db` was deleted or replaced while open and is opened again at its path (OAuthStore). */
  onStoreReopened?: (path: string) => void;
}): OAuthHost {
  const stateDir = options.stateDir ?? join(options.bundle.rootDir, '.goondan');
  const store = new OAuthStore(
    join(stateDir, 'oauth.db'),
    resolveOAuthKey(),
    options.onStoreReopened ? { onReopened: options.onStoreReopened } : {},
  );
  return createOAuthHost({
    bundle: options.bundle,
    store,
    ...(options.onDevicePollRetry ? { onDevicePollRetry: options.onDevicePollRetry } : {}),
    onGranted:
      options.onGranted ??
      ((event, requester) => {
        const { databaseFile } = instancePaths({ rootDir: options.bundle.rootDir, stateDir, ...requester });
        const db = openInstanceDatabase(databaseFile);
        try {
          new InboxStore(db).put(event);
        } finally {
          db.close();
        }
      }),
  });
}
