import { expect, test } from 'bun:test';
import { Writable } from 'node:stream';
import { createRedactingConsole } from './stderr-logger.ts';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

test('log lines are redacted: secret-named fields, bearer tokens, URL credentials, secret variables', () => {
  const out = capture();
  const logger = createRedactingConsole(out.stream, { env: { SERVICE_TOKEN: 'env-secret-9f8e7d6c' } });
  logger.info('connecting with', { user: 'ada', password: 'hunter2' });
  logger.warn('Authorization: Bearer xyzTok3nValue');
  logger.error(new Error('GET https://me:s3cretPass@example.com/ failed'));
  logger.log('token from env: %s', 'env-secret-9f8e7d6c');
  const text = out.text();
  expect(text).toContain("user: 'ada'");
  expect(text).toContain('[REDACTED]');
  for (const secret of ['hunter2', 'xyzTok3nValue', 's3cretPass', 'env-secret-9f8e7d6c'])
    expect(text).not.toContain(secret);
});

test('log lines lose their control characters: what an MCP server wrote cannot retitle or clear the terminal', () => {
  const out = capture();
  const logger = createRedactingConsole(out.stream, { env: {} });
  logger.error("MCP tool '\u001b]0;owned\u0007' of server 'odd' is skipped");
  logger.warn('garbage: %s', '\u001b[2J\u001b[H\u009b31m');
  logger.info('two\nlines\tand a tab');
  const text = out.text();
  for (const control of ['\u001b', '\u0007', '\u009b']) expect(text.includes(control)).toBe(false);
  expect(text).toContain("MCP tool '\ufffd]0;owned\ufffd' of server 'odd' is skipped");
  expect(text).toContain('two\nlines\tand a tab');
});
