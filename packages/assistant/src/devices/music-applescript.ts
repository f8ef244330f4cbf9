import { GoondanError } from '@goondan/core/errors';
import type { NowPlaying } from './music-mpris.ts';
import { runDeviceCommandOk } from './run-device-command.ts';

/**
 * The Music app of macOS through osascript. Untested here (no macOS in CI): kept to a few AppleScript lines, and
 * every value from the model reaches the script as an argument (`on run argv`), never as script text.
 */
export class AppleMusic {
  constructor(private readonly signal?: AbortSignal) {}

  private script(lines: string[], args: string[] = []): Promise<string> {
    const program = ['on run argv', ...lines, 'end run'].flatMap((line) => ['-e', line]);
    return runDeviceCommandOk('osascript', [...program, ...args], this.signal ? { signal: this.signal } : {});
  }

  async nowPlaying(): Promise<NowPlaying> {
    const out = await this.script([
      'tell application "Music"',
      'set s to player state as text',
      'if s is "stopped" then return s',
      'set t to current track',
      'return s & tab & (name of t) & tab & (artist of t) & tab & (album of t) & tab & (player position as integer) & tab & (duration of t as integer)',
      'end tell',
    ]);
    const [status = 'stopped', title, artist, album, position, length] = out.trim().split('\t');
    const seconds = (text: string | undefined) => (text && /^\d+$/.test(text) ? Number(text) : null);
    return {
      player: 'Music',
      status: status === 'playing' ? 'playing' : status === 'paused' ? 'paused' : 'stopped',
      title: title || null,
      artist: artist || null,
      album: album || null,
      positionSeconds: seconds(position),
      lengthSeconds: seconds(length),
    };
  }

  async command(action: 'play-pause' | 'next'): Promise<void> {
    await this.script([`tell application "Music" to ${action === 'next' ? 'next track' : 'playpause'}`]);
  }

  /** Plays the first library track whose name, artist or album contains the query; its name, or a coded error. */
  async searchPlay(query: string): Promise<string> {
    const out = await this.script(
      [
        'set q to item 1 of argv',
        'tell application "Music"',
        'set found to (every track of library playlist 1 whose name contains q or artist contains q or album contains q)',
        'if found is {} then return ""',
        'play item 1 of found',
        'return (name of item 1 of found) & " — " & (artist of item 1 of found)',
        'end tell',
      ],
      [query],
    );
    if (out.trim() === '')
      throw new GoondanError('E_MUSIC_NOT_FOUND', `No track in the Music library matches '${query}'.`);
    return out.trim();
  }
}
