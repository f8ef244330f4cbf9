import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestToolContext } from '@goondan/core/testing';
import { assistantToolset } from '../../test/assistant-toolset.ts';
import { setEnvironment, startFakePlayer, startSessionBus } from '../../test/desktop-session.ts';
import { handlers } from './index.ts';

let bus: Awaited<ReturnType<typeof startSessionBus>>;
let player: Awaited<ReturnType<typeof startFakePlayer>>;
let restore: () => void;
const root = mkdtempSync(join(tmpdir(), 'assistant-music-'));
const library = join(root, 'Music');

beforeAll(async () => {
  bus = await startSessionBus();
  restore = setEnvironment({ DBUS_SESSION_BUS_ADDRESS: bus.address });
  player = await startFakePlayer(bus.address);
  mkdirSync(join(library, 'BTS', 'You Never Walk Alone'), { recursive: true });
  // Written decomposed (as macOS file systems store Korean) to check the search normalises.
  writeFileSync(join(library, 'BTS', 'You Never Walk Alone', '01 봄날 (Spring Day).mp3'.normalize('NFD')), '');
  writeFileSync(join(library, 'BTS', 'notes.txt'), '봄날');
});
afterAll(() => {
  player?.stop();
  bus?.stop();
  restore?.();
  rmSync(root, { recursive: true, force: true });
});

const ctx = (config: Record<string, unknown> = {}) => createTestToolContext({ workdir: root, config: config as never });

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'none';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('music__* over MPRIS (playerctl, a private session bus, a fake player)', () => {
  test('offered when playerctl and a session bus are here; search_play once config.library is set', async () => {
    const offered = await assistantToolset({ music: null });
    expect(offered.offered).toEqual(['music__now_playing', 'music__play_pause', 'music__next']);
    expect(offered.unavailable).toEqual({ music__search_play: 'needs spec.config.library (not set)' });
    expect((await assistantToolset({ music: { library } })).offered).toContain('music__search_play');
  });

  test('not offered without a session bus, or without playerctl, saying why', async () => {
    const undo = setEnvironment({
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(root, 'no-bus')}`,
      XDG_RUNTIME_DIR: undefined,
    });
    try {
      const { offered, unavailable } = await assistantToolset({ music: null });
      expect(offered).toEqual([]);
      expect(unavailable.music__next).toMatch(/needs a D-Bus session bus/);
    } finally {
      undo();
    }
    const noPath = setEnvironment({ PATH: join(root, 'empty-bin') });
    try {
      expect((await assistantToolset({ music: null })).unavailable.music__now_playing).toBe(
        'needs the command playerctl on PATH (not found)',
      );
    } finally {
      noPath();
    }
  });

  test('now_playing, play_pause and next drive the player', async () => {
    expect(await handlers.now_playing(ctx())).toEqual({
      player: 'fake',
      status: 'playing',
      title: '봄날',
      artist: 'BTS',
      album: 'You Never Walk Alone',
      positionSeconds: 12,
      lengthSeconds: 274,
    });
    const from = player.lines.seen.length;
    expect(await handlers.play_pause(ctx())).toMatchObject({ status: 'paused', title: '봄날' });
    await player.lines.next(/^PlayPause$/, from);
    expect(await handlers.play_pause(ctx())).toMatchObject({ status: 'playing' });
    const next = await handlers.next(ctx());
    expect(next).toMatchObject({ skipped: true, nowPlaying: { title: 'Next Song', artist: 'Someone' } });
  });

  test('search_play finds a file of the library (Korean, any normalisation) and asks the player to open it', async () => {
    const from = player.lines.seen.length;
    const played = await handlers.search_play(ctx({ library }), { query: 'bts 봄날' });
    const file = join(library, 'BTS', 'You Never Walk Alone', '01 봄날 (Spring Day).mp3'.normalize('NFD'));
    expect(played).toMatchObject({ playing: 'BTS/You Never Walk Alone/01 봄날 (Spring Day).mp3'.normalize('NFD') });
    expect(await player.lines.next(/^OpenUri /, from)).toBe(`OpenUri ${pathToFileURL(file).href}`);
    expect(await codeOf(() => handlers.search_play(ctx({ library }), { query: 'no such song' }))).toBe(
      'E_MUSIC_NOT_FOUND',
    );
    expect(await codeOf(() => handlers.search_play(ctx({ library: join(root, 'nowhere') }), { query: 'x' }))).toBe(
      'E_MUSIC_NOT_FOUND',
    );
    // A URI the player opens itself goes to it as it is.
    await handlers.search_play(ctx({ library }), { query: 'https://radio.example.test/stream.mp3' });
    await player.lines.next(/^OpenUri https:\/\/radio\.example\.test\/stream\.mp3$/, from);
  });

  test('a configured player that is not running is E_MUSIC_NO_PLAYER', async () => {
    expect(await codeOf(() => handlers.now_playing(ctx({ player: 'absent' })))).toBe('E_MUSIC_NO_PLAYER');
    expect(await codeOf(() => handlers.play_pause(ctx({ player: 'absent' })))).toBe('E_MUSIC_NO_PLAYER');
  });
});
