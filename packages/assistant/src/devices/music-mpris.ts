import { GoondanError } from '@goondan/core/errors';
import { type DeviceRun, runDeviceCommand } from './run-device-command.ts';

/** What is playing, in the same shape from every backend. */
export interface NowPlaying {
  player: string;
  status: 'playing' | 'paused' | 'stopped';
  title: string | null;
  artist: string | null;
  album: string | null;
  positionSeconds: number | null;
  lengthSeconds: number | null;
}

const FIELDS = ['playerName', 'status', 'title', 'artist', 'album', 'position', 'mpris:length'];
// A unit separator between fields: titles may hold tabs, never U+001F.
const FORMAT = FIELDS.map((field) => `{{${field}}}`).join('\u001f');

/**
 * MPRIS (Linux desktops) through playerctl: every player that speaks org.mpris.MediaPlayer2 on the session bus
 * (Spotify, VLC, Rhythmbox, browsers…). `players` (config.player) picks among several, in order; otherwise
 * playerctl's choice, the most recently active one.
 */
export class MprisMusic {
  constructor(
    private readonly players: string[],
    private readonly signal?: AbortSignal,
  ) {}

  private async playerctl(args: string[]): Promise<DeviceRun> {
    const select = this.players.length > 0 ? ['--player', this.players.join(',')] : [];
    const run = await runDeviceCommand('playerctl', [...select, ...args], this.signal ? { signal: this.signal } : {});
    if (run.exitCode !== 0 && /no players? (found|could handle)/i.test(run.stderr) && args[0] !== 'metadata') {
      throw new GoondanError(
        'E_MUSIC_NO_PLAYER',
        `No media player is running${this.players.length ? ` among ${this.players.join(', ')}` : ''} on this session bus (MPRIS).`,
      );
    }
    return run;
  }

  async nowPlaying(): Promise<NowPlaying> {
    const run = await this.playerctl(['metadata', '--format', FORMAT]);
    if (run.exitCode !== 0) {
      // A stopped player often has no track: its status still answers (and says when there is no player at all).
      const status = await this.playerctl(['status']);
      if (status.exitCode !== 0) throw new GoondanError('E_DEVICE_FAILED', `playerctl status failed: ${status.stderr}`);
      const name = await this.playerctl(['metadata', '--format', '{{playerName}}']);
      return {
        player: name.stdout.trim() || 'unknown',
        status: toStatus(status.stdout),
        title: null,
        artist: null,
        album: null,
        positionSeconds: null,
        lengthSeconds: null,
      };
    }
    const [player, status, title, artist, album, position, length] = run.stdout.replace(/\n$/, '').split('\u001f');
    return {
      player: player || 'unknown',
      status: toStatus(status ?? ''),
      title: title || null,
      artist: artist || null,
      album: album || null,
      positionSeconds: microseconds(position),
      lengthSeconds: microseconds(length),
    };
  }

  async command(action: 'play-pause' | 'next'): Promise<void> {
    const run = await this.playerctl([action]);
    if (run.exitCode !== 0) throw new GoondanError('E_DEVICE_FAILED', `playerctl ${action} failed: ${run.stderr}`);
  }

  /** Asks the player to play a URI (file:// of a found track, or a URI the player knows, e.g. spotify:…). */
  async open(uri: string): Promise<void> {
    const run = await this.playerctl(['open', uri]);
    if (run.exitCode !== 0) throw new GoondanError('E_DEVICE_FAILED', `playerctl open failed: ${run.stderr}`);
  }
}

function toStatus(text: string): NowPlaying['status'] {
  const status = text.trim().toLowerCase();
  return status === 'playing' ? 'playing' : status === 'paused' ? 'paused' : 'stopped';
}

function microseconds(text: string | undefined): number | null {
  if (!text || !/^\d+$/.test(text.trim())) return null;
  return Math.round(Number(text) / 1_000_000);
}
