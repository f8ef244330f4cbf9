import { expect, test } from 'bun:test';
import { GoondanError } from '../errors/goondan-error.ts';
import { forgetSecretValues, knownSecretValues } from '../permissions/secret-registry.ts';
import { resolveValueSource } from './resolve-value-source.ts';

test('an inline value is returned as is', () => {
  expect(resolveValueSource({ value: 'sk-inline' }, {})).toBe('sk-inline');
});

test('valueFrom.env reads the named environment variable', () => {
  expect(resolveValueSource({ valueFrom: { env: 'MY_KEY' } }, { MY_KEY: 'sk-env' })).toBe('sk-env');
});

test('an unset or empty variable throws E_VALUE_SOURCE_ENV naming it', () => {
  for (const env of [{}, { MY_KEY: '' }]) {
    let thrown: unknown;
    try {
      resolveValueSource({ valueFrom: { env: 'MY_KEY' } }, env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GoondanError);
    expect((thrown as GoondanError).code).toBe('E_VALUE_SOURCE_ENV');
    expect((thrown as GoondanError).message).toContain('MY_KEY');
    expect((thrown as GoondanError).suggestion).toContain('MY_KEY');
  }
});

test('every resolved value is remembered as a secret, so output sinks mask it', () => {
  try {
    resolveValueSource({ valueFrom: { env: 'SERVICE' } }, { SERVICE: 'from-env-8f3a9c1d' });
    resolveValueSource({ value: 'inline-77b2e4d1' }, {});
    expect(knownSecretValues()).toContain('from-env-8f3a9c1d');
    expect(knownSecretValues()).toContain('inline-77b2e4d1');
  } finally {
    forgetSecretValues();
  }
});
