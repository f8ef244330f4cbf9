import { describe, expect, test } from 'bun:test';
import { scrubEnvironment } from './scrub-environment.ts';

describe('scrubEnvironment', () => {
  test('drops secrets and provider variables, keeps the ordinary ones', () => {
    const scrubbed = scrubEnvironment({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      SSL_CERT_FILE: '/etc/ssl/certs/ca.pem',
      HTTP_PROXY: 'http://proxy:3128',
      FAKE_API_KEY: 'x',
      my_token: 'x',
      DB_PASSWORD: 'x',
      CLIENT_SECRET: 'x',
      AWS_REGION: 'eu-west-1',
      ANTHROPIC_BASE_URL: 'https://example',
      OPENAI_ORG_ID: 'x',
      GITHUB_TOKEN: 'x',
      GH_TOKEN: 'x',
      SSH_AUTH_SOCK: '/tmp/agent',
      DATABASE_URL: 'postgres://db/app',
      HTTPS_PROXY: 'http://user:hunter2@proxy:3128',
      UNSET: undefined,
    });
    expect(scrubbed).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      SSL_CERT_FILE: '/etc/ssl/certs/ca.pem',
      HTTP_PROXY: 'http://proxy:3128',
    });
  });

  test('does not change its input', () => {
    const env = { PATH: '/bin', SECRET_THING: 'x' };
    scrubEnvironment(env);
    expect(env).toEqual({ PATH: '/bin', SECRET_THING: 'x' });
  });
});
