import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** What the tests count and drive on the real authorization server (oidc-provider on 127.0.0.1). */
export interface AuthorizationServer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Token endpoint grants by type (`authorization_code`, `refresh_token`, ...), successful ones only. */
  grants: string[];
  /** Token endpoint errors (e.g. `invalid_grant`). */
  tokenErrors: string[];
  /** Completes the device flow for `userCode` as if a person typed it and approved. */
  approveDevice(userCode: string): Promise<void>;
  /** The device flow's user side refusing: the code is entered, then the person cancels. */
  denyDevice(userCode: string): Promise<void>;
  close(): Promise<void>;
}

const SCOPES = 'openid offline_access profile email';

/**
 * Starts oidc-provider on 127.0.0.1 with one confidential client whose redirect URI is `redirectUri`. Login and
 * consent are automatic (any authorize request is approved as account `ada`), so a test "browser" only follows
 * redirects. Access tokens live `accessTokenTtlSeconds`; refresh tokens rotate on every use.
 */
export async function startAuthorizationServer(options: {
  redirectUris: string[];
  accessTokenTtlSeconds?: number;
}): Promise<AuthorizationServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'goondan-test';
  const clientSecret = 'test-client-secret-value-0123456789';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
        response_types: ['code'],
      },
    ],
    cookies: { keys: ['test-cookie-key-0123456789'] },
    scopes: SCOPES.split(' '),
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: { enabled: true },
      revocation: { enabled: true },
    },
    ttl: { AccessToken: options.accessTokenTtlSeconds ?? 3600, DeviceCode: 600 },
    issueRefreshToken: async () => true,
    rotateRefreshToken: true,
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  } as never);
  const grants: string[] = [];
  const tokenErrors: string[] = [];
  const events = provider as unknown as { on(event: string, listener: (ctx: never, error: never) => void): void };
  events.on('grant.success', (ctx: { oidc: { params: { grant_type: string } } }) =>
    grants.push(ctx.oidc.params.grant_type),
  );
  events.on('grant.error', (_ctx, error: { error?: string }) => tokenErrors.push(error.error ?? 'error'));
  const providerCallback = provider.callback();
  server.on('request', async (req, res) => {
    try {
      if (req.url?.startsWith('/interaction/')) return await finishInteraction(provider, req, res);
      providerCallback(req, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  return {
    issuer,
    clientId,
    clientSecret,
    grants,
    tokenErrors,
    approveDevice: (userCode) => approveDevice(issuer, userCode),
    denyDevice: (userCode) => approveDevice(issuer, userCode, { deny: true }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Req = Parameters<Provider['interactionDetails']>[0];
type Res = Parameters<Provider['interactionDetails']>[1];

async function finishInteraction(provider: Provider, req: Req, res: Res): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: 'ada' } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId: 'ada', clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope ?? SCOPES));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * Plays the browser: follows redirects from `url`, carrying cookies (`cookies`, which it updates), until one points
 * at `stopAt` (the client's redirect URI), and returns that URL without requesting it.
 */
export async function followAuthorization(
  url: string,
  stopAt: string,
  cookies: Map<string, string> = new Map(),
): Promise<string> {
  let next = url;
  for (let hop = 0; hop < 20; hop++) {
    if (next.startsWith(stopAt)) return next;
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: cookieHeader(cookies) } });
    keepCookies(response, cookies);
    const location = response.headers.get('location');
    if (!location)
      throw new Error(`authorization stopped at ${next}: HTTP ${response.status} ${await response.text()}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}

function cookieHeader(cookies: Map<string, string>): string {
  return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}

function keepCookies(response: Response, cookies: Map<string, string>): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
}

/**
 * The device flow's user side (oidc-provider's pages): enter the code, confirm it, then pass login and consent
 * (automatic here) until the flow lands on the success page.
 */
async function approveDevice(issuer: string, userCode: string, options: { deny?: boolean } = {}): Promise<void> {
  const cookies = new Map<string, string>();
  const post = async (form: Record<string, string>) => {
    const response = await fetch(`${issuer}/device`, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { cookie: cookieHeader(cookies) },
      redirect: 'manual',
    });
    keepCookies(response, cookies);
    return response;
  };
  const page = await fetch(`${issuer}/device`);
  keepCookies(page, cookies);
  const xsrfOf = (html: string) => /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const confirmPage = await post({ xsrf: xsrfOf(await page.text()), user_code: userCode });
  const xsrf = xsrfOf(await confirmPage.text());
  if (options.deny) {
    const aborted = await post({ xsrf, user_code: userCode, abort: 'yes' });
    if (aborted.status >= 400) throw new Error(`cancelling the device code failed: HTTP ${aborted.status}`);
    return;
  }
  const confirmed = await post({ xsrf, user_code: userCode, confirm: 'yes' });
  const location = confirmed.headers.get('location');
  if (!location) throw new Error(`the device code was not accepted: HTTP ${confirmed.status}`);
  await followAuthorization(new URL(location, issuer).href, `${issuer}/device/success`, cookies).catch((error) => {
    // The last hop answers the success page itself (200, no redirect).
    if (!String(error).includes('/device/success') && !String(error).includes('Sign-in Success')) throw error;
  });
}
