/**
 * Extension oauth-guidance (spec v1 §12.6.6, docs/oauth.md#guidance-blocks): while an OAuth authorization this
 * agent instance asked for waits for a person, every step's model input ends with a guidance block saying what to
 * do: authSessionId, authorizationUrl (or userCode + verificationUri), expiresAt and message, as JSON. Only what
 * the model reads this step is changed; the stored conversation is not. The block holds nothing secret: no token,
 * no PKCE verifier, no device code (the link's `state` is single-use and useless without the verifier the host
 * keeps sealed; docs/decisions.md).
 *
 * config: none.
 */
import {
  createMessage,
  type ExtensionApi,
  type Message,
  type OAuthPendingAuthorization,
  type OAuthService,
  useOAuthService,
} from '@goondan/core';

/** Outer (early): the block is added before a message window trims the rest. */
export const GUIDANCE_STEP_PRIORITY = -10;

/** The guidance block for `pending` authorizations, as a user-role message the model reads last. */
export function guidanceMessage(pending: OAuthPendingAuthorization[], extensionName: string): Message {
  const text = [
    'Authorization pending: a person must complete it before the tools that need it work.',
    'Tell the user how (link or code below), then retry once they say it is done. Nothing here is secret.',
    JSON.stringify({ pendingAuthorizations: pending }, null, 2),
  ].join('\n');
  return createMessage({ role: 'user', content: [{ type: 'text', text }] }, { type: 'extension', extensionName });
}

export function register(api: ExtensionApi): void {
  const service = (): OAuthService | undefined => {
    try {
      return useOAuthService();
    } catch {
      return undefined; // No OAuth host in this process: nothing can be pending.
    }
  };
  api.pipeline.register(
    'step',
    async (ctx) => {
      const oauth = service();
      if (oauth) {
        try {
          const pending = await oauth.pendingAuthorizations({ agentName: api.agentName, instanceKey: api.instanceKey });
          if (pending.length > 0) ctx.messages = [...ctx.messages, guidanceMessage(pending, api.extensionName)];
        } catch (thrown) {
          api.logger.warn(`oauth-guidance: could not read pending authorizations: ${String(thrown)}`);
        }
      }
      return ctx.next();
    },
    { priority: GUIDANCE_STEP_PRIORITY },
  );
}
