import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import type { BundleProblem, OAuthAppResource } from './resources.ts';

/**
 * The OAuthApp rules a schema cannot say (E_OAUTH_APP_INVALID at the field), so a flow that cannot work is refused
 * at load (spec v1 §12.6.5.2) rather than when a tool first asks for a token.
 */
export function checkOAuthApps(declared: readonly DeclaredResource[]): BundleProblem[] {
  const problems: BundleProblem[] = [];
  for (const entry of declared) {
    if (entry.resource.kind !== 'OAuthApp') continue;
    const spec = (entry.resource as OAuthAppResource).spec;
    const problem = (path: string[], message: string) =>
      problems.push(problemAt(entry.document, { code: 'E_OAUTH_APP_INVALID', path, message }));
    // Both: the endpoints as given (no discovery), the issuer what the server's ID tokens name (its `iss`).
    if (!spec.issuer && !spec.endpoints) {
      problem(['spec'], 'Give spec.issuer (discovery), spec.endpoints, or both (the issuer then checks ID tokens).');
    }
    if (spec.flow === 'authorizationCode') {
      if (!spec.redirectUri) {
        problem(
          ['spec', 'redirectUri'],
          'flow authorizationCode needs a loopback redirectUri, e.g. http://127.0.0.1:8765/oauth/callback.',
        );
      }
      if (spec.endpoints && !spec.endpoints.authorization) {
        problem(['spec', 'endpoints', 'authorization'], 'flow authorizationCode needs the authorization endpoint.');
      }
    }
    if (spec.flow === 'deviceCode') {
      if (spec.redirectUri) problem(['spec', 'redirectUri'], 'flow deviceCode has no redirect; remove redirectUri.');
      if (spec.endpoints && !spec.endpoints.deviceAuthorization) {
        problem(
          ['spec', 'endpoints', 'deviceAuthorization'],
          'flow deviceCode needs the device authorization endpoint.',
        );
      }
    }
    if (new Set(spec.scopes).size !== spec.scopes.length) problem(['spec', 'scopes'], 'A scope is listed twice.');
  }
  return problems;
}
