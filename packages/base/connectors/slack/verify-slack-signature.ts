import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack refuses (and so do we) requests whose timestamp is further than this from now: a replayed request. */
export const SLACK_REPLAY_WINDOW_SECONDS = 5 * 60;

/**
 * Checks a Slack request signature (Slack's "verifying requests" scheme, version v0): `X-Slack-Signature` must be
 * `v0=` + hex HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>` keyed with the app's signing secret,
 * compared in constant time, and the timestamp within 5 minutes of `nowSeconds`. Returns null when it holds, else
 * why not.
 */
export function verifySlackSignature(options: {
  signingSecret: string;
  timestamp: string | null;
  signature: string | null;
  body: string;
  nowSeconds: number;
}): string | null {
  const { timestamp, signature } = options;
  if (!timestamp || !signature) return 'the X-Slack-Request-Timestamp or X-Slack-Signature header is missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'the timestamp is not a number of seconds';
  if (Math.abs(options.nowSeconds - Number(timestamp)) > SLACK_REPLAY_WINDOW_SECONDS) {
    return 'the timestamp is more than 5 minutes from now (a replayed request?)';
  }
  const expected = `v0=${createHmac('sha256', options.signingSecret).update(`v0:${timestamp}:${options.body}`).digest('hex')}`;
  const given = Buffer.from(signature);
  const wanted = Buffer.from(expected);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'the signature does not match';
  return null;
}

/** Signs a body as Slack does (for tests and for local senders). */
export function signSlackRequest(options: { signingSecret: string; timestamp: number; body: string }): string {
  const base = `v0:${options.timestamp}:${options.body}`;
  return `v0=${createHmac('sha256', options.signingSecret).update(base).digest('hex')}`;
}
