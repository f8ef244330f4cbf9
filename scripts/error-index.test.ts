import { expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorCodes } from '../packages/core/src/errors/error-codes.ts';
import { errorIndexPage, renderErrorIndex } from './error-index.ts';

test('the error index lists every code of the table, each with its page, and is up to date', () => {
  const rendered = renderErrorIndex();
  for (const code of Object.keys(errorCodes)) {
    expect({ code, listed: rendered.includes(`| [${code}](${code}.md) |`) }).toEqual({ code, listed: true });
    expect({ code, page: existsSync(join(dirname(errorIndexPage), `${code}.md`)) }).toEqual({ code, page: true });
  }
  expect(readFileSync(errorIndexPage, 'utf8')).toBe(rendered);
});
