import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestToolContext } from '@goondan/core/testing';
import { assistantToolset } from '../../test/assistant-toolset.ts';
import { setEnvironment, startXvfb } from '../../test/desktop-session.ts';
import { handlers } from './index.ts';

let xvfb: Awaited<ReturnType<typeof startXvfb>>;
let restore: () => void;
const workdir = mkdtempSync(join(tmpdir(), 'assistant-clipboard-'));
const defaults = { readSources: ['user:cli', 'user:chat'], maxChars: 20000 };

beforeAll(async () => {
  xvfb = await startXvfb();
  restore = setEnvironment({ DISPLAY: xvfb.display, WAYLAND_DISPLAY: undefined });
});
afterAll(() => {
  xvfb?.stop();
  restore?.();
  rmSync(workdir, { recursive: true, force: true });
});

const ctx = (source: { kind: string; name: string } | undefined, config: Record<string, unknown> = defaults) =>
  createTestToolContext({ workdir, config: config as never, ...(source ? { source } : {}) });

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'none';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('clipboard__* on a real X display (Xvfb, xsel)', () => {
  test('offered with xsel and a display; without a display it is not, saying why', async () => {
    expect((await assistantToolset({ clipboard: null })).offered).toEqual(['clipboard__read', 'clipboard__write']);
    const undo = setEnvironment({ DISPLAY: undefined });
    try {
      expect((await assistantToolset({ clipboard: null })).unavailable).toEqual({
        clipboard__read: 'needs the environment variable DISPLAY (not set)',
        clipboard__write: 'needs the environment variable DISPLAY (not set)',
      });
    } finally {
      undo();
    }
  });

  test('write then read: the text comes back whole, Korean and new lines included', async () => {
    const text = '회의록 초안\n- 다음 주 화요일 3시\n';
    expect(await handlers.write(ctx({ kind: 'user', name: 'telegram' }), { text })).toEqual({ written: text.length });
    expect(await handlers.read(ctx({ kind: 'user', name: 'cli' }))).toEqual({
      text,
      length: text.length,
      truncated: false,
    });
    const cut = await handlers.read(ctx({ kind: 'user', name: 'chat' }, { ...defaults, maxChars: 5 }));
    expect(cut).toEqual({ text: '회의록 초', length: text.length, truncated: true });
  });

  test('reading is refused to remote sources unless config.readSources names them', async () => {
    for (const source of [{ kind: 'user', name: 'telegram' }, { kind: 'agent', name: 'helper' }, undefined]) {
      expect(await codeOf(() => handlers.read(ctx(source)))).toBe('E_CLIPBOARD_READ_DENIED');
    }
    const telegram = { kind: 'user', name: 'telegram' };
    expect((await handlers.read(ctx(telegram, { readSources: ['user:telegram'] }))).truncated).toBe(false);
    expect((await handlers.read(ctx({ kind: 'agent', name: 'x' }, { readSources: ['*'] }))).truncated).toBe(false);
  });
});
