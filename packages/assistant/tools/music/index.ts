/**
 * music__*: the media player of this machine (docs/assistant-devices.md#music). Linux: any MPRIS player through
 * playerctl; macOS: the Music app through osascript. Offered only where the backend is present (spec.requires).
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolContext } from '@goondan/core';
import { AppleMusic } from '../../src/devices/music-applescript.ts';
import { findTrack } from '../../src/devices/music-library.ts';
import { MprisMusic } from '../../src/devices/music-mpris.ts';

function backend(ctx: ToolContext): MprisMusic | AppleMusic {
  if (process.platform === 'darwin') return new AppleMusic(ctx.signal);
  const player = ctx.config.player;
  const players = typeof player === 'string' ? [player] : Array.isArray(player) ? player.map(String) : [];
  return new MprisMusic(players, ctx.signal);
}

/** A URI a player opens itself (a stream, spotify:track:…), rather than words to search for. */
const PLAYER_URI = /^(https?:\/\/|spotify:|file:\/\/)\S+$/i;

export const handlers = {
  now_playing: (ctx: ToolContext) => backend(ctx).nowPlaying(),

  play_pause: async (ctx: ToolContext) => {
    const music = backend(ctx);
    await music.command('play-pause');
    return music.nowPlaying();
  },

  next: async (ctx: ToolContext) => {
    const music = backend(ctx);
    await music.command('next');
    // A player may announce the new track a moment later: the answer says what it reports now.
    return { skipped: true, nowPlaying: await music.nowPlaying() };
  },

  search_play: async (ctx: ToolContext, input: { query: string }) => {
    const music = backend(ctx);
    if (music instanceof AppleMusic) return { playing: await music.searchPlay(input.query) };
    if (PLAYER_URI.test(input.query.trim())) {
      await music.open(input.query.trim());
      return { playing: input.query.trim(), nowPlaying: await music.nowPlaying() };
    }
    const library = String(ctx.config.library ?? '');
    const root = library.startsWith('~/') ? resolve(homedir(), library.slice(2)) : resolve(library);
    const track = await findTrack(root, input.query);
    await music.open(pathToFileURL(track.file).href);
    return { playing: track.relativePath, nowPlaying: await music.nowPlaying() };
  },
};
