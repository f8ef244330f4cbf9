import { expect, test } from 'bun:test';
import { serverCredentials } from './nats-config.ts';

test('credentials written into server URLs are lifted out of them (the NATS client ignores them)', () => {
  expect(serverCredentials(['nats://alice:s3cr%40t@broker:4222', 'nats://other:4222'])).toEqual({
    servers: ['nats://broker:4222', 'nats://other:4222'],
    user: 'alice',
    pass: 's3cr@t',
  });
  expect(serverCredentials(['tls://T0KEN@broker:4222'])).toEqual({ servers: ['tls://broker:4222'], token: 'T0KEN' });
  expect(serverCredentials(['broker:4222'])).toEqual({ servers: ['broker:4222'] });
});
