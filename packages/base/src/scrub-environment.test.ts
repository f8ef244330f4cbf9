import { afterEach, describe, expect, test } from 'bun:test';
import { rememberSecretValue } from '@goondan/core';
import { forgetSecretValues } from '@goondan/core/testing';
import { isSecretVariable, scrubEnvironment } from './scrub-environment.ts';

afterEach(forgetSecretValues);

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

describe('isSecretVariable by name', () => {
  test('secret words count whole, or at the end of a word: MY_PASS, DB_PWD, APIKEY, GHTOKEN, x-auth', () => {
    for (const name of [
      'MY_PASS',
      'DB_PWD',
      'SMTP_PASSWD',
      'APIKEY',
      'MYAPIKEY',
      'SERVICE_KEY',
      'GHTOKEN',
      'deploySecret',
      'SIGNING_KEYS',
      'BASIC_AUTH',
      'OAUTH_STATE',
      'PRIVATE_PEM',
      'SESSION_ID',
      'COOKIE_JAR',
      'SERVICE_CREDS',
      'x-auth-token',
    ])
      expect({ name, secret: isSecretVariable(name, 'plain') }).toEqual({ name, secret: true });
  });

  test('words that merely contain one are not secrets: KEYBOARD, MONKEY, AUTHOR, BYPASS, PWD, PATH', () => {
    for (const name of [
      'KEYBOARD_LAYOUT',
      'MONKEY',
      'TURKEY_MODE',
      'AUTHOR_NAME',
      'BYPASS_CACHE',
      'COMPASS_HOME',
      'PWD',
      'OLDPWD',
      'PATH',
      'HOME',
      'LANG',
      'TERM',
      'TOKENIZERS_PARALLELISM',
      'PASSTHROUGH',
    ])
      expect({ name, secret: isSecretVariable(name, 'plain') }).toEqual({ name, secret: false });
  });
});

describe('isSecretVariable by value', () => {
  test('key-shaped values under neutral names are secrets', () => {
    const values = {
      FOO: 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c',
      X: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      STRIPE: 'sk_live_abcdefghijklmnop1234',
      CLOUD: 'AKIAIOSFODNN7EXAMPLE',
      AWS_LIKE: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      BLOB: 'Zx9Qm2Lk7Vb4Np8RsT1wYc6Hd3Jf5Gq0',
      JWT: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      HEADER: 'Bearer abcdef0123456789',
      PEM: '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----',
    };
    for (const [name, value] of Object.entries(values))
      expect({ name, secret: isSecretVariable(name, value) }).toEqual({ name, secret: true });
  });

  test('ordinary values stay, long ones included: paths, lists, hex ids, UUIDs, flags, versions', () => {
    const values = {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      JAVA_HOME: '/usr/lib/jvm/java-17-openjdk-amd64',
      LS_COLORS: 'rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01',
      GIT_COMMIT: '3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49',
      INVOCATION_ID: '0f3c9a1e5b7d4c2a8e6f1b3d5c7a9e0f',
      REQUEST_ID: 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F',
      NODE_OPTIONS: '--max-old-space-size=4096',
      LANG: 'en_US.UTF-8',
      APP_NAME: 'MyApplicationName2024Production',
      IMAGE_TAG: 'my-service-v2.3.4-alpine-amd64-Build7',
      DISPLAY: ':0',
      HOSTNAME: 'ip-10-0-12-34.eu-west-1.compute.internal',
    };
    for (const [name, value] of Object.entries(values))
      expect({ name, secret: isSecretVariable(name, value) }).toEqual({ name, secret: false });
  });

  test('a variable holding a known secret value is dropped, whatever its name', () => {
    rememberSecretValue('resolved-from-a-value-source-42');
    expect(isSecretVariable('NEUTRAL', 'resolved-from-a-value-source-42')).toBe(true);
    expect(isSecretVariable('NEUTRAL', 'prefix resolved-from-a-value-source-42')).toBe(true);
    expect(scrubEnvironment({ NEUTRAL: 'resolved-from-a-value-source-42', KEEP: 'ok' })).toEqual({ KEEP: 'ok' });
  });
});
