import {
  GoondanError,
  type OAuthAppResource,
  openOAuthHost,
  type StoredSession,
  serveOAuthCallbacks,
} from '@goondan/core';
import { parseCommandArgs, unknownSubcommand } from '../cli-args.ts';
import { commandHelpText, docsLink } from '../docs-link.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { openBundle } from '../open-bundle.ts';
import { printable, UsageError, useColor } from '../terminal.ts';
import { printProblems } from './validate.ts';

export const authHelp = `Usage: gdn auth list [--json] | login APP | logout APP [--user ID] [--bundle DIR]

The OAuth grants of the bundle's OAuthApps (docs/oauth.md). Tokens are never printed.

  list          every OAuthApp, its flow and subject mode, and the grants stored for it
  login APP     authorize APP (name or OAuthApp/name): prints the link to open (authorizationCode; the loopback
                callback is served until it arrives) or the code to enter (deviceCode), and waits for the grant
  logout APP    delete APP's grant and revoke its tokens at the server

Options:
  --json        (list) print {apps: [{app, flow, subjectMode, scopes, grants: [{subject, scopes, expiresAt}]}]}
  --user ID     the user of a subjectMode: user app
  --bundle DIR  the bundle directory (default: the current directory or a parent with goondan.yaml)`;

export async function authCommand(argv: string[]): Promise<number> {
  // `gdn auth` alone shows what it does, like the other commands with subcommands.
  if (argv.length === 0) {
    console.log(commandHelpText('auth', authHelp));
    return 2;
  }
  const { values, positionals } = parseCommandArgs({
    command: 'auth',
    argv,
    spec: { user: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(authHelp);
    return 0;
  }
  const [action, app, ...extra] = positionals;
  if (action !== 'list' && action !== 'login' && action !== 'logout') {
    if (action) throw unknownSubcommand('auth', action, ['list', 'login', 'logout']);
    throw new UsageError('missing the subcommand: gdn auth list, gdn auth login APP or gdn auth logout APP', 'auth');
  }
  if (action !== 'list' && !app) throw new UsageError(`${action} needs the OAuthApp's name`, 'auth');
  if (extra.length > 0 || (action === 'list' && app)) throw new UsageError('too many arguments', 'auth');
  if (values.json && action !== 'list') throw new UsageError('--json goes with list', 'auth');
  if (values.json) reserveStdoutForJson();
  const opened = await openBundle(values.bundle, { importHandlers: false });
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  const bundle = opened.bundle;
  // A poll of the token endpoint that failed for a moment (a 503, a connection refused) is retried: said on stderr.
  const host = openOAuthHost({ bundle, onDevicePollRetry: (retry) => console.error(printable(retry.message)) });
  try {
    const caller = values.user ? { agentName: 'gdn-auth', instanceKey: 'cli', userId: values.user } : undefined;
    const oauthAppRef = app?.includes('/') ? app : `OAuthApp/${app}`;
    if (action === 'list') {
      const grants = host.store.listGrants();
      if (values.json) {
        const apps = [...bundle.resources.values()]
          .filter((resource): resource is OAuthAppResource => resource.kind === 'OAuthApp')
          .map((resource) => {
            const app = `OAuthApp/${resource.metadata.name}`;
            const { flow, subjectMode, scopes } = resource.spec;
            const own = grants.filter((grant) => grant.app === app);
            const stored = own.map(({ subject, scopes, expiresAt }) => ({ subject, scopes, expiresAt }));
            return { app, flow, subjectMode, scopes, grants: stored };
          });
        printJson({ apps });
        return 0;
      }
      if (![...bundle.resources.values()].some((resource) => resource.kind === 'OAuthApp')) {
        console.log(
          `No OAuthApp in ${printable(opened.dir)}: declare one to give tools OAuth tokens (${docsLink('oauth.md')}).`,
        );
        return 0;
      }
      for (const resource of bundle.resources.values()) {
        if (resource.kind !== 'OAuthApp') continue;
        const { spec } = resource as OAuthAppResource;
        const key = `OAuthApp/${resource.metadata.name}`;
        console.log(
          printable(`${key}  ${spec.flow}  subjectMode=${spec.subjectMode}  scopes=${spec.scopes.join(' ')}`),
        );
        const own = grants.filter((grant) => grant.app === key);
        if (own.length === 0) console.log('  not authorized');
        for (const grant of own) {
          const expires = grant.expiresAt === null ? 'no expiry' : `expires ${new Date(grant.expiresAt).toISOString()}`;
          // The scopes are what the provider's token answer said it granted: shown without control characters.
          console.log(printable(`  ${grant.subject}  granted ${grant.scopes.join(' ')}  ${expires}`));
        }
      }
      return 0;
    }
    if (action === 'logout') {
      const removed = await host.logout({ oauthAppRef, ...(caller ? { caller } : {}) });
      console.log(removed ? `Logged out of ${oauthAppRef}.` : `No grant of ${oauthAppRef} was stored.`);
      return 0;
    }
    // Settles when this login's own authorization is granted or can no longer succeed (its session spent by a
    // failed callback, or expired); a forged callback leaves the session pending, so login goes on waiting.
    let current: StoredSession | undefined;
    let finish: (failure?: unknown) => void = () => {};
    const callbackOutcome = new Promise<void>((resolve, reject) => {
      finish = (failure) => (failure === undefined ? resolve() : reject(failure));
    });
    callbackOutcome.catch(() => {}); // awaited only in the authorizationCode flow
    const spent = () => {
      if (!current) return false;
      const stored = host.store.session(current.id);
      return !stored || stored.usedAt !== null || stored.expiresAt <= Date.now();
    };
    let callbacks: { stop(): Promise<void> };
    let watch: ReturnType<typeof setInterval> | undefined;
    /** The version of the grant stored before this login (a new one is this login's). */
    let grantBefore: number | null = null;
    try {
      callbacks = serveOAuthCallbacks({
        bundle,
        host,
        onGranted: (session) => {
          if (session.id === current?.id) finish();
        },
        onFailed: (error) => {
          if (spent()) finish(error);
        },
      });
    } catch (thrown) {
      if ((thrown as { code?: unknown } | null)?.code !== 'EADDRINUSE') throw thrown;
      // The callback address is taken, most likely by a gdn serve, run or chat of this bundle: that process answers
      // the callback into the same store, so this login watches the store for its grant instead.
      console.error(
        'gdn auth: the callback address is in use (a running gdn serve, run or chat of this bundle answers it); waiting for the grant.',
      );
      callbacks = { stop: async () => clearInterval(watch) };
      watch = setInterval(() => {
        if (!current) return;
        // Answered (the session is spent) and a grant stored since this login began (not a refresh meanwhile).
        const answered = host.store.session(current.id)?.usedAt != null;
        const grant = host.store.getGrant(current.app, current.subject);
        if (answered && grant && grant.version !== grantBefore) finish();
        else if (spent()) {
          const failure = `The callback of ${current.id} failed in the process that answered it; nothing was stored.`;
          finish(new GoondanError('E_OAUTH_CALLBACK_INVALID', failure));
        }
      }, 250);
    }
    let expiry: ReturnType<typeof setTimeout> | undefined;
    try {
      const { session, done } = await host.login({ oauthAppRef, ...(caller ? { caller } : {}) });
      current = session;
      grantBefore = host.store.getGrant(session.app, session.subject)?.version ?? null;
      if (session.flow !== 'deviceCode') {
        expiry = setTimeout(
          () =>
            finish(
              new GoondanError(
                'E_OAUTH_SESSION_EXPIRED',
                `Authorization ${session.id} expired before the callback came.`,
              ),
            ),
          Math.max(0, session.expiresAt - Date.now()),
        );
      }
      const url = session.secret.authorizationUrl;
      // The link and the device flow's words come from the provider (and the bundle's issuer): no control character.
      console.log(
        printable(url ? `Open this link to authorize ${oauthAppRef}:\n${url}` : (session.shown.message ?? '')),
      );
      // A coded failure (the provider's reason in its message) is thrown on and reported with exit status 1.
      await (session.flow === 'deviceCode' ? done : callbackOutcome);
      if (!host.store.listGrants().some((grant) => grant.app === session.app && grant.subject === session.subject)) {
        console.error(`gdn auth: the authorization of ${oauthAppRef} did not complete; nothing was stored.`);
        return 1;
      }
      console.log(`Authorized ${oauthAppRef}.`);
      return 0;
    } finally {
      clearTimeout(expiry);
      await callbacks.stop();
    }
  } finally {
    host.store.close();
  }
}
