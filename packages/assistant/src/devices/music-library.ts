import { opendir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GoondanError } from '@goondan/core/errors';

const AUDIO = /\.(mp3|flac|ogg|oga|opus|m4a|aac|wav|wma|alac|aiff?)$/i;
/** The walk stops here: a library of a few thousand albums is read in well under a second. */
const MAX_ENTRIES = 50_000;
const MAX_DEPTH = 8;

/** Lower case, NFC (Korean typed on macOS arrives decomposed), separators as spaces. */
function normalise(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[_\-./\\]+/g, ' ');
}

/**
 * The audio file of `root` (the configured music folder) whose path best matches `query`: every word of the query
 * must appear in the path (artist folders count); among those, the shortest path. E_MUSIC_NOT_FOUND otherwise.
 */
export async function findTrack(root: string, query: string): Promise<{ file: string; relativePath: string }> {
  const words = normalise(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) throw new GoondanError('E_TOOL_INVALID_ARGS', 'The query has no words to search for.');
  let best: string | null = null;
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    let handle: Awaited<ReturnType<typeof opendir>>;
    try {
      handle = await opendir(dir);
    } catch (thrown) {
      if (depth === 0) {
        throw new GoondanError(
          'E_MUSIC_NOT_FOUND',
          `The music folder '${root}' cannot be read: ${(thrown as Error).message}`,
          {
            suggestion: "Set the music Tool's config.library to a folder of audio files this user can read.",
          },
        );
      }
      return;
    }
    for await (const entry of handle) {
      if (++seen > MAX_ENTRIES) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH && !entry.name.startsWith('.')) await walk(path, depth + 1);
      else if (entry.isFile() && AUDIO.test(entry.name)) {
        const text = normalise(relative(root, path));
        if (words.every((word) => text.includes(word)) && (best === null || path.length < best.length)) best = path;
      }
    }
  };
  await walk(root, 0);
  if (best === null) {
    throw new GoondanError('E_MUSIC_NOT_FOUND', `No audio file in the music folder matches '${query}'.`);
  }
  return { file: best, relativePath: relative(root, best).split(sep).join('/') };
}
