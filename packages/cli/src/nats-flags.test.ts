import { expect, test } from 'bun:test';
import { natsServersLabel } from './nats-flags.ts';

test('the log label of the servers leaves out credentials written into their URLs', () => {
  expect(natsServersLabel('nats://alice:s3cretPass@broker:4222,tls://T0KEN@other:4222')).toBe(
    'nats://broker:4222,tls://other:4222',
  );
  expect(natsServersLabel(['nats://a:b@x:1', 'nats://y:2'])).toBe('nats://x:1,nats://y:2');
  expect(natsServersLabel('nats://broker:4222')).toBe('nats://broker:4222');
});
