import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestToolContext } from '@goondan/core/testing';
import { assistantToolset } from '../../test/assistant-toolset.ts';
import { setEnvironment } from '../../test/desktop-session.ts';
import { fakeOpener } from '../../test/fake-opener.ts';
import { handlers } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'assistant-url-'));
const opener = fakeOpener(root);
let restore: () => void;
beforeAll(() => {
  // The display only has to be named: the fake opener never draws.
  restore = setEnvironment({ PATH: opener.path, DISPLAY: ':99', WAYLAND_DISPLAY: undefined });
});
afterAll(() => {
  restore?.();
  rmSync(root, { recursive: true, force: true });
});

const ctx = createTestToolContext({ workdir: root });

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'none';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('url__open through the desktop opener (a fake xdg-open that records its arguments)', () => {
  test('offered with an opener and a display; without a display not, saying why', async () => {
    expect((await assistantToolset({ url: null })).offered).toEqual(['url__open']);
    const undo = setEnvironment({ DISPLAY: undefined });
    try {
      expect((await assistantToolset({ url: null })).unavailable).toEqual({
        url__open: 'needs the environment variable DISPLAY or WAYLAND_DISPLAY (not set)',
      });
    } finally {
      undo();
    }
  });

  test('opens http(s) addresses only, as one argument', async () => {
    expect(await handlers.open(ctx, { url: 'https://example.test/검색?q=a b&x=1' })).toEqual({
      opened: 'https://example.test/%EA%B2%80%EC%83%89?q=a%20b&x=1',
    });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'ssh://host', 'not a url', '--help']) {
      expect(await codeOf(() => handlers.open(ctx, { url }))).toBe('E_HTTP_INVALID_URL');
    }
    expect(opener.opened()).toEqual(['https://example.test/%EA%B2%80%EC%83%89?q=a%20b&x=1']);
  });

  test('an opener that fails is E_DEVICE_FAILED with its words', async () => {
    const failing = fakeOpener(join(root, 'failing'), { fail: true });
    const undo = setEnvironment({ PATH: failing.path });
    try {
      const error = await handlers.open(ctx, { url: 'https://example.test/' }).catch((thrown) => thrown);
      expect(error).toMatchObject({ code: 'E_DEVICE_FAILED' });
      expect(error.message).toContain('no method available');
    } finally {
      undo();
    }
  });
});
