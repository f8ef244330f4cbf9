import { expect, test } from 'bun:test';
import { checkBearerToken } from './check-bearer-token.ts';

const withAuthorization = (value?: string) =>
  new Request('http://127.0.0.1/v1/models', value === undefined ? {} : { headers: { authorization: value } });

test('only the token itself passes: not a prefix, a longer one, another scheme, or none', () => {
  const token = 's3cret-token-value';
  expect(() => checkBearerToken(withAuthorization(`Bearer ${token}`), token)).not.toThrow();
  expect(() => checkBearerToken(withAuthorization(`bearer   ${token} `), token)).not.toThrow();
  for (const given of [`Bearer ${token.slice(0, -1)}`, `Bearer ${token}x`, `Basic ${token}`, 'Bearer ', '']) {
    expect(() => checkBearerToken(withAuthorization(given), token)).toThrow(
      expect.objectContaining({ code: 'E_SERVE_UNAUTHORIZED' }),
    );
  }
  expect(() => checkBearerToken(withAuthorization(), token)).toThrow(
    expect.objectContaining({ code: 'E_SERVE_UNAUTHORIZED' }),
  );
});
