import { describe, expect, test } from 'bun:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { toStoreError } from './to-store-error.ts';

function sqliteError(code: string, message: string): Error {
  return Object.assign(new Error(message), { name: 'SQLiteError', code });
}

describe('toStoreError', () => {
  const file = join(tmpdir(), 'state.db');

  test('SQLITE_FULL is E_STORE_FULL naming the file and saying to free space', () => {
    const coded = toStoreError(sqliteError('SQLITE_FULL', 'database or disk is full'), file);
    expect(coded).toBeInstanceOf(GoondanError);
    expect((coded as GoondanError).code).toBe('E_STORE_FULL');
    expect((coded as GoondanError).message).toContain(file);
    expect((coded as GoondanError).suggestion).toContain('Free space on the disk holding');
  });

  test('an I/O error on a disk with room is E_STORE_OPEN naming the file, not a bare SQLiteError', () => {
    const coded = toStoreError(sqliteError('SQLITE_IOERR_WRITE', 'disk I/O error'), file);
    expect((coded as GoondanError).code).toBe('E_STORE_OPEN');
    expect((coded as GoondanError).message).toContain(file);
  });

  test('SQLITE_TOOBIG is E_STORE_VALUE_INVALID naming the file and the limit, not a bare "string or blob too big"', () => {
    const coded = toStoreError(sqliteError('SQLITE_TOOBIG', 'string or blob too big'), file);
    expect((coded as GoondanError).code).toBe('E_STORE_VALUE_INVALID');
    expect((coded as GoondanError).message).toContain(file);
    expect((coded as GoondanError).message).toContain('1,000,000,000 bytes in one value');
    expect((coded as GoondanError).suggestion).toContain('file');
  });

  test('a failure that says nothing about the file comes back unchanged', () => {
    const error = sqliteError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed');
    expect(toStoreError(error, file)).toBe(error);
  });
});
