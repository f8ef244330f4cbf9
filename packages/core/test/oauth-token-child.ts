/**
 * A separate host process for the cross-process tests: opens the store named by OAUTH_TEST_DB with the bundle of
 * OAUTH_TEST_APPS (JSON of oauthBundle's argument), prints `ready`, waits for a line on stdin, then asks once for
 * the token of OAUTH_TEST_APP and prints the result as JSON.
 */
import { createOAuthHost } from '../src/oauth/oauth-host.ts';
import { OAuthStore } from '../src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../src/oauth/resolve-oauth-key.ts';
import { oauthBundle } from './oauth-fixture.ts';

const store = new OAuthStore(process.env.OAUTH_TEST_DB!, resolveOAuthKey());
const host = createOAuthHost({ bundle: oauthBundle(JSON.parse(process.env.OAUTH_TEST_APPS!)), store });
console.log('ready');
for await (const _line of console) break;
const result = await host.getAccessToken({
  caller: { agentName: 'worker', instanceKey: String(process.pid) },
  oauthAppRef: process.env.OAUTH_TEST_APP!,
});
console.log(JSON.stringify(result));
store.close();
