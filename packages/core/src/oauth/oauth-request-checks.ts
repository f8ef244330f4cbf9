import { parseObjectRef, refKey } from '../config/object-ref.ts';
import type { Bundle } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { quotedValue } from '../errors/quoted-value.ts';
import type { ObjectRef } from '../types.ts';
import type { OAuthAppResourceSpec, OAuthCaller } from './oauth-types.ts';

/** The OAuthApp a request names: its `OAuthApp/name` key and spec. Throws E_OAUTH_APP_UNKNOWN. */
export function findOAuthApp(bundle: Bundle, ref: ObjectRef): { key: string; spec: OAuthAppResourceSpec } {
  const parsed = parseObjectRef(ref);
  const key = parsed ? refKey(parsed.kind, parsed.name) : String(ref);
  const resource = bundle.resources.get(key);
  if (parsed?.kind !== 'OAuthApp' || resource?.kind !== 'OAuthApp') {
    const names = [...bundle.resources.values()].filter((r) => r.kind === 'OAuthApp').map((r) => r.metadata.name);
    throw new GoondanError('E_OAUTH_APP_UNKNOWN', `No OAuthApp ${quotedValue(key)} in the bundle.`, {
      suggestion: names.length
        ? `Use one of: ${names.map((name) => `OAuthApp/${name}`).join(', ')}.`
        : 'Declare an OAuthApp resource (docs/resources.md#oauthapp).',
    });
  }
  return { key, spec: resource.spec };
}

/** Spec v1 §12.6.1.1: `global` for a global app; the user's id for `subjectMode: user`. Throws E_OAUTH_NO_SUBJECT. */
export function subjectOf(spec: OAuthAppResourceSpec, caller: OAuthCaller | undefined): string {
  if (spec.subjectMode === 'global') return 'global';
  const fromMessage = caller?.message?.metadata?.userId;
  const userId = caller?.userId ?? (typeof fromMessage === 'string' ? fromMessage : undefined);
  if (!userId) {
    throw new GoondanError('E_OAUTH_NO_SUBJECT', 'This OAuthApp has subjectMode user, and the turn names no user.', {
      suggestion:
        'Grants of a per-user app need the user: pass caller.userId, or deliver messages with metadata.userId.',
    });
  }
  return `user:${userId}`;
}

/** Spec v1 §12.6.1.2: requested scopes must be a subset of the app's. Throws E_OAUTH_SCOPE_NOT_ALLOWED. */
export function checkScopes(spec: OAuthAppResourceSpec, appKey: string, requested: string[] | undefined): string[] {
  if (requested === undefined) return spec.scopes;
  const outside = requested.filter((scope) => !spec.scopes.includes(scope));
  if (outside.length > 0) {
    throw new GoondanError(
      'E_OAUTH_SCOPE_NOT_ALLOWED',
      `Scopes ${outside.join(', ')} are not among ${appKey}'s scopes (${spec.scopes.join(' ')}).`,
    );
  }
  return requested;
}
