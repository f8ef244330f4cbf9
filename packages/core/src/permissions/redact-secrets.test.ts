import { describe, expect, test } from 'bun:test';
import type { JsonValue } from '../types.ts';
import { isSecretKey, REDACTED, redactSecrets, secretValuesFromEnv } from './redact-secrets.ts';

// Shaped like real credentials, built at run time so no scanner mistakes this file for a leak.
const openAiKey = `sk-proj-${'Ab3'.repeat(12)}`;
const githubToken = `ghp_${'x1'.repeat(18)}`;
const githubPat = `github_pat_${'11AB'.repeat(10)}`;
const awsKeyId = 'AKIAIOSFODNN7EXAMPLE';
const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${'s1G'.repeat(10)}`;
const pem = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEow'.repeat(8),
  'AbCd'.repeat(10),
  '-----END RSA PRIVATE KEY-----',
].join('\n');

describe('isSecretKey', () => {
  test('names secrets in any case or spelling', () => {
    for (const key of [
      'password',
      'Passwd',
      'db_password',
      'secret',
      'client_secret',
      'token',
      'access_token',
      'githubToken',
      'GITHUB_TOKEN',
      'api_key',
      'apiKey',
      'api-key',
      'APIKey',
      'x-api-key',
      'apikey',
      'Authorization',
      'cookie',
      'Set-Cookie',
      'credential',
      'credentials',
      'private_key',
      'privateKey',
      'access_key',
      'AWS_SECRET_ACCESS_KEY',
      'session_id',
      'sessionId',
      'session_token',
    ])
      expect({ key, secret: isSecretKey(key) }).toEqual({ key, secret: true });
  });

  test('leaves near misses alone: other words, plurals of token, and names that describe a secret', () => {
    for (const key of [
      'tokens_used',
      'tokenizer',
      'max_tokens',
      'maxTokens',
      'inputTokens',
      'token_count',
      'tokenType',
      'secretary',
      'passwordless',
      'keyboard',
      'key',
      'monkey',
      'author',
      'session',
      'session_name',
      'sessions',
      'password_file',
      'apiKeyEnv',
      'token_url',
      'max_token',
      'description',
    ])
      expect({ key, secret: isSecretKey(key) }).toEqual({ key, secret: false });
  });
});

describe('redactSecrets', () => {
  test('replaces whole values under secret keys, at any depth, and copies everything else', () => {
    const input: JsonValue = {
      user: 'alice',
      password: 'hunter2',
      max_tokens: 100,
      tokens_used: 42,
      tokenizer: 'cl100k',
      headers: { Authorization: 'Basic YWxpY2U6aHVudGVyMg==', Accept: 'application/json' },
      nested: [{ api_key: 12345678 }, { credentials: { user: 'u', pass: 'p' } }],
    };
    const before = structuredClone(input);
    expect(redactSecrets(input)).toEqual({
      user: 'alice',
      password: REDACTED,
      max_tokens: 100,
      tokens_used: 42,
      tokenizer: 'cl100k',
      headers: { Authorization: REDACTED, Accept: 'application/json' },
      nested: [{ api_key: REDACTED }, { credentials: REDACTED }],
    });
    expect(input).toEqual(before);
  });

  test('the documented example', () => {
    expect(redactSecrets({ url: 'https://me:hunter2@db.example.com', apiKey: 'k-123', max_tokens: 100 })).toEqual({
      url: `https://me:${REDACTED}@db.example.com`,
      apiKey: REDACTED,
      max_tokens: 100,
    });
  });

  test('keeps null, booleans and empty strings under secret keys: they show what was set, not a secret', () => {
    expect(redactSecrets({ password: null, token: '', secret: false })).toEqual({
      password: null,
      token: '',
      secret: false,
    });
  });

  test('redacts the value of a name/value pair whose name is a secret', () => {
    expect(
      redactSecrets({
        headers: [
          { name: 'X-Api-Key', value: 'abc123' },
          { name: 'Accept', value: 'text/plain' },
        ],
        env: [{ key: 'DB_PASSWORD', value: 'pw' }],
      }),
    ).toEqual({
      headers: [
        { name: 'X-Api-Key', value: REDACTED },
        { name: 'Accept', value: 'text/plain' },
      ],
      env: [{ key: 'DB_PASSWORD', value: REDACTED }],
    });
  });

  test('replaces only the credential inside a longer string', () => {
    const cases: [string, string][] = [
      [`use ${openAiKey} for this`, `use ${REDACTED} for this`],
      [`curl -H "Authorization: Bearer abc123def456" https://x`, `curl -H "Authorization: ${REDACTED}" https://x`],
      [`Bearer ${'Zz9'.repeat(8)} expired`, `Bearer ${REDACTED} expired`],
      [`token ${githubToken}.`, `token ${REDACTED}.`],
      [`pat=${githubPat} `, `pat=${REDACTED} `],
      [`id ${awsKeyId} in us-east-1`, `id ${REDACTED} in us-east-1`],
      [`cookie jar ${jwt} end`, `cookie jar ${REDACTED} end`],
      [`key:\n${pem}\nafter`, `key:\n${REDACTED}\nafter`],
      ['git clone https://bob:s3cret@github.com/o/r.git', `git clone https://bob:${REDACTED}@github.com/o/r.git`],
      ['postgres://app:pw@db:5432/x', `postgres://app:${REDACTED}@db:5432/x`],
      ['export DB_PASSWORD=hunter2 && run', `export DB_PASSWORD=${REDACTED} && run`],
      ['GITHUB_TOKEN="a b c" gh pr list', `GITHUB_TOKEN=${REDACTED} gh pr list`],
      [
        'https://api.example.com/v1?access_token=abc&page=2',
        `https://api.example.com/v1?access_token=${REDACTED}&page=2`,
      ],
      ['mysql --password=hunter2 --user root', `mysql --password=${REDACTED} --user root`],
      ['echo password=hunter2 > creds.txt', `echo password=${REDACTED} > creds.txt`],
      ['login user=bob db_passwd=hunter2 now', `login user=bob db_passwd=${REDACTED} now`],
      ['curl -u admin:hunter2 https://x', `curl -u admin:${REDACTED} https://x`],
      ['curl --user=admin:hunter2 https://x', `curl --user=admin:${REDACTED} https://x`],
      ['login --api-key abc123 --verbose', `login --api-key ${REDACTED} --verbose`],
      ['{"user": "a", "password": "hunter2"}', `{"user": "a", "password": "${REDACTED}"}`],
      ['host: db\npassword: hunter2\nport: 5432', `host: db\npassword: ${REDACTED}\nport: 5432`],
      ['[auth]\ntoken = abc\n', `[auth]\ntoken = ${REDACTED}\n`],
      [`slack ${'xoxb'}-1234567890-abcdef ok`, `slack ${REDACTED} ok`],
      [`stripe ${'sk_live'}_${'a1B2'.repeat(6)} ok`, `stripe ${REDACTED} ok`],
      [`maps AIza${'b'.repeat(35)} ok`, `maps ${REDACTED} ok`],
      [`bot 123456789:AA${'Hx9_'.repeat(8)} ok`, `bot ${REDACTED} ok`],
      ['at 12:30 and 1234567:AB no token', 'at 12:30 and 1234567:AB no token'],
      [`cut off:\n${pem.split('\n').slice(0, 2).join('\n')}`, `cut off:\n${REDACTED}`],
      ['mysql -u root -phunter2 shop', `mysql -u root -p${REDACTED} shop`],
      ['mysqldump -h db -pS3cr3t! shop > dump.sql', `mysqldump -h db -p${REDACTED} shop > dump.sql`],
      ['sshpass -p hunter2 ssh deploy@host', `sshpass -p ${REDACTED} ssh deploy@host`],
      ['sshpass -v -phunter2 scp a host:', `sshpass -v -p${REDACTED} scp a host:`],
      ['curl -H "X-Token: abc123" https://x', `curl -H "X-Token: ${REDACTED}" https://x`],
      ['X-Vault-Token: s.abcdef\nX-Goog-Api-Key: AIzaX', `X-Vault-Token: ${REDACTED}\nX-Goog-Api-Key: ${REDACTED}`],
      [
        'HTTP/1.1 200 OK\r\nSet-Cookie: sid=abc; HttpOnly\r\nServer: x',
        `HTTP/1.1 200 OK\r\nSet-Cookie: ${REDACTED}\r\nServer: x`,
      ],
    ];
    for (const [input, expected] of cases) expect(redactSecrets(input)).toBe(expected);
  });

  test('finds word-only credentials in text of letters, digits, dots and spaces (the fast path)', () => {
    for (const secret of [githubToken, githubPat, awsKeyId, jwt, `sk_live_${'Ab3'.repeat(6)}`, `AIza${'b'.repeat(35)}`])
      expect(redactSecrets(`tool output ${secret} done.`)).toBe(`tool output ${REDACTED} done.`);
    expect(redactSecrets(`Bearer ${'Zz9'.repeat(8)}`)).toBe(`Bearer ${REDACTED}`);
    for (const text of ['tool slow__wait', 'step 0', 'call_8f3a.2 ok', '']) expect(redactSecrets(text)).toBe(text);
  });

  test('leaves strings that only look a little like credentials alone', () => {
    for (const text of [
      'risk-assessment-framework-version',
      'sk-learn is a library',
      'sk-short1',
      'ghp_short',
      'AKIA is a prefix; AKIAshort',
      'the bearer of bad news',
      'Bearer instruments',
      'eyJhbGciOiJIUzI1NiJ9 alone, no dots',
      'https://user@example.com/path',
      'http://host:8080/path?u=a@b',
      'mailto:alice@example.com',
      'MAX_TOKENS=4096 TOKEN_COUNT=12',
      '--max-tokens 100 --token-count 5',
      '?max_tokens=5&page=2',
      'tokens_used: 100\ntokenizer: bpe\npassword_file: /etc/pw',
      'password: null',
      '{"tokens_used": "12", "max_tokens": "100"}',
      'Please enter your password to continue.',
      'max_tokens=100 tokens=5 password_file=/etc/pw',
      'docker run -u 1000:1000 image',
      'mysql -p shop',
      'mysql -P 3306 -h db shop',
      'grep -phrase mysql.log',
      'X-Request-Id: 42\nX-Forwarded-For: 10.0.0.1',
      'Output tokens: 42',
    ])
      expect(redactSecrets(text)).toBe(text);
  });

  test('replaces every occurrence of the given secret values, longest first, and ignores very short ones', () => {
    expect(
      redactSecrets(
        { note: 'key=topsecretvalue; again topsecretvalue; abc', list: ['xtopsecretvaluex', 7] },
        { secretValues: ['topsecret', 'topsecretvalue', 'abc'] },
      ),
    ).toEqual({ note: `key=${REDACTED}; again ${REDACTED}; abc`, list: [`x${REDACTED}x`, 7] });
  });

  test('cuts containers nested deeper than 64 levels', () => {
    let deep: JsonValue = 'bottom';
    for (let level = 0; level < 100; level++) deep = [deep];
    let node = redactSecrets(deep);
    let depth = 0;
    while (Array.isArray(node)) {
      node = node[0]!;
      depth++;
    }
    expect(depth).toBe(64);
    expect(node).toBe('[TRUNCATED]');

    let shallow: JsonValue = 'bottom';
    for (let level = 0; level < 64; level++) shallow = { next: shallow };
    expect(redactSecrets(shallow)).toEqual(shallow);
  });

  test('stays linear on long runs of characters that start a pattern', () => {
    for (const text of [
      '--a-'.repeat(250_000),
      'sk-'.repeat(300_000),
      'a.b+c'.repeat(200_000),
      'A_'.repeat(500_000),
      'mysql '.repeat(200_000),
      'x-'.repeat(400_000),
      'sshpass -v '.repeat(100_000),
    ]) {
      const started = performance.now();
      expect(redactSecrets(text)).toBe(text);
      // Linear takes milliseconds; a quadratic pattern took 10-30 s on these.
      expect(performance.now() - started).toBeLessThan(8000);
    }
  });

  test('keeps a __proto__ key as data', () => {
    const input = JSON.parse('{"__proto__": {"password": "x", "ok": 1}}') as JsonValue;
    const output = redactSecrets(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.keys(output)).toEqual(['__proto__']);
    expect(JSON.stringify(output)).toBe(`{"__proto__":{"password":"${REDACTED}","ok":1}}`);
  });
});

describe('secretValuesFromEnv', () => {
  test('takes values of secret-looking variables of 8 characters or more, longest first', () => {
    expect(
      secretValuesFromEnv({
        OPENAI_API_KEY: openAiKey,
        GITHUB_TOKEN: 'gh-token-1',
        DB_PASSWORD: 'short',
        MY_SECRET: undefined,
        AWS_CREDENTIAL_VALUE: 'cred-value-1234',
        HOME: '/home/someone/long/path',
        PATH: '/usr/bin:/bin',
        DUPLICATE_KEY: 'gh-token-1',
      }),
    ).toEqual([openAiKey, 'cred-value-1234', 'gh-token-1']);
  });

  test('not the values of variables that say they hold a place (…_KEY_FILE, …_TOKEN_PATH, …_SECRETS_DIR)', () => {
    expect(
      secretValuesFromEnv({
        GOONDAN_OAUTH_KEY_FILE: '/home/someone/.config/goondan/oauth.key',
        GH_TOKEN_PATH: '/run/secrets/gh-token',
        APP_SECRETS_DIR: '/run/secrets',
        GOONDAN_OAUTH_KEY: 'a-real-key-value-123',
      }),
    ).toEqual(['a-real-key-value-123']);
  });
});
