/**
 * A media player for the music tests: org.mpris.MediaPlayer2(.Player) on the session bus given as argv[2], named
 * org.mpris.MediaPlayer2.<argv[3]>. Prints `ready` once it owns its name, then one line per method called
 * (`PlayPause`, `Next`, `OpenUri <uri>`), so a test can wait for what the tool did.
 */
import dbus from '@homebridge/dbus-native';

/** The part of the library used here (its bundled types leave sessionBus and exportInterface out). */
interface Bus {
  exportInterface(object: object, path: string, description: object): void;
  requestName(name: string, flags: number, done: (error: unknown) => void): void;
}
const { sessionBus } = dbus as unknown as { sessionBus(options: { busAddress: string | undefined }): Bus };

const [address, name = 'fake'] = process.argv.slice(2);
const bus = sessionBus({ busAddress: address });
const tracks = [
  { id: '/fake/track/1', title: '봄날', artist: 'BTS', album: 'You Never Walk Alone', seconds: 274 },
  { id: '/fake/track/2', title: 'Next Song', artist: 'Someone', album: 'Somewhere', seconds: 180 },
];
const state = { status: 'Playing', track: tracks[0]! };

const metadata = () => [
  ['mpris:trackid', ['o', state.track.id]],
  ['xesam:title', ['s', state.track.title]],
  ['xesam:artist', ['as', [state.track.artist]]],
  ['xesam:album', ['s', state.track.album]],
  ['mpris:length', ['x', state.track.seconds * 1_000_000]],
];

const root = { Identity: 'Fake Player', CanQuit: false, CanRaise: false, HasTrackList: false, emit() {} };
const player = {
  PlayPause() {
    state.status = state.status === 'Playing' ? 'Paused' : 'Playing';
    console.log('PlayPause');
  },
  Next() {
    state.track = tracks[(tracks.indexOf(state.track) + 1) % tracks.length]!;
    console.log('Next');
  },
  OpenUri(uri: string) {
    const file = decodeURIComponent(uri.split('/').pop() ?? uri).replace(/\.[a-z0-9]+$/i, '');
    state.track = { id: '/fake/track/opened', title: file, artist: 'Opened', album: '', seconds: 60 };
    state.status = 'Playing';
    console.log(`OpenUri ${uri}`);
  },
  get PlaybackStatus() {
    return state.status;
  },
  get Metadata() {
    return metadata();
  },
  Position: 12_000_000,
  CanControl: true,
  CanPlay: true,
  CanPause: true,
  CanGoNext: true,
  CanGoPrevious: true,
  CanSeek: false,
  emit() {},
};

bus.exportInterface(root, '/org/mpris/MediaPlayer2', {
  name: 'org.mpris.MediaPlayer2',
  methods: {},
  properties: { Identity: 's', CanQuit: 'b', CanRaise: 'b', HasTrackList: 'b' },
  signals: {},
});
bus.exportInterface(player, '/org/mpris/MediaPlayer2', {
  name: 'org.mpris.MediaPlayer2.Player',
  methods: { PlayPause: ['', ''], Next: ['', ''], OpenUri: ['s', ''] },
  properties: {
    PlaybackStatus: 's',
    Metadata: 'a{sv}',
    Position: 'x',
    CanControl: 'b',
    CanPlay: 'b',
    CanPause: 'b',
    CanGoNext: 'b',
    CanGoPrevious: 'b',
    CanSeek: 'b',
  },
  signals: {},
});
bus.requestName(`org.mpris.MediaPlayer2.${name}`, 0x4, (error: unknown) => {
  if (error) {
    console.error(`cannot own the name: ${String(error)}`);
    process.exit(1);
  }
  console.log('ready');
});
