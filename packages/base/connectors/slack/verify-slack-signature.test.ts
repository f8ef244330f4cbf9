import { describe, expect, test } from 'bun:test';
import { signSlackRequest, verifySlackSignature } from './verify-slack-signature.ts';

const signingSecret = '8f742231b10e8888abcd99yyyzzz85a5';
const body = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&command=%2Fweather';
const now = 1_531_420_618;

describe('verifySlackSignature', () => {
  test('accepts v0=HMAC-SHA256(signing secret, "v0:timestamp:body") within 5 minutes', () => {
    const signature = signSlackRequest({ signingSecret, timestamp: now, body });
    expect(signature).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(
      verifySlackSignature({ signingSecret, timestamp: String(now), signature, body, nowSeconds: now + 299 }),
    ).toBeNull();
  });

  test('refuses another secret, a changed body, a replay older than 5 minutes and missing headers', () => {
    const signature = signSlackRequest({ signingSecret, timestamp: now, body });
    const check = (overrides: Partial<Parameters<typeof verifySlackSignature>[0]>) =>
      verifySlackSignature({ signingSecret, timestamp: String(now), signature, body, nowSeconds: now, ...overrides });
    expect(check({ signingSecret: 'another' })).toContain('does not match');
    expect(check({ body: `${body}&x=1` })).toContain('does not match');
    expect(check({ nowSeconds: now + 301 })).toContain('5 minutes');
    expect(check({ signature: null })).toContain('missing');
    expect(check({ signature: 'v0=short' })).toContain('does not match');
  });
});
