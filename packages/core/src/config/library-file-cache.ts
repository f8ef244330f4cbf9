import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { goondanCacheDir, writeCacheFile } from './cache-file.ts';
import { checkerFingerprint } from './checker-fingerprint.ts';
import { BUNDLE_FILE_NAME } from './find-bundle-dir.ts';
import type { YamlDocument } from './locate-field.ts';
import { parseYamlDocuments, yamlLimits } from './parse-yaml-documents.ts';
import { bundleRelativePath, readBundleFile } from './read-bundle-file.ts';
import { readUtf8 } from './read-utf8.ts';
import type { BundleProblem } from './resources.ts';
import type { UnreadableDocument } from './unreadable-document.ts';

/** Where a document starts, as checkResourceDocument records it in the resource's location. */
export interface DocumentStart {
  line: number;
  column: number;
}

/** A library's goondan.yaml, read through the cache. */
export interface LibraryFile {
  documents: YamlDocument[];
  problems: BundleProblem[];
  unreadable: UnreadableDocument[];
  /**
   * Documents an earlier load parsed and checked without any problem (a cache hit): their resources can be built
   * without checking them again. Empty on a miss.
   */
  checked: ReadonlyMap<YamlDocument, DocumentStart>;
  /** Stores the file as checked; the caller calls it only when the file and all its documents had no problem. */
  remember(starts: readonly DocumentStart[]): void;
}

interface CacheEntry {
  format: 1;
  documents: { value: Record<string, unknown>; line: number; column: number }[];
}

/** `$XDG_CACHE_HOME/goondan/library-bundles`, else `~/.cache/goondan/library-bundles`. */
export function libraryCacheDir(env: Record<string, string | undefined> = process.env): string {
  return join(goondanCacheDir(env), 'library-bundles');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPosition(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1;
}

/** The entry at `path`, or null when it is missing, unreadable or not in the expected shape. */
function readEntry(path: string): CacheEntry | null {
  let entry: unknown;
  try {
    entry = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  if (!isPlainObject(entry) || entry.format !== 1 || !Array.isArray(entry.documents)) return null;
  const valid = entry.documents.every(
    (item: unknown) =>
      isPlainObject(item) && isPlainObject(item.value) && isPosition(item.line) && isPosition(item.column),
  );
  return valid ? (entry as unknown as CacheEntry) : null;
}

/**
 * Documents of a cache hit: the data from the entry, and the YAML nodes (for positions of problems found by the
 * bundle-wide checks) parsed from the file's text only if a problem needs them.
 */
function cachedDocuments(options: { text: string; file: string; absoluteFile: string; entry: CacheEntry }) {
  const { text, file, absoluteFile } = options;
  let parsed: YamlDocument[] | undefined;
  const nodes = (index: number): YamlDocument => {
    parsed ??= parseYamlDocuments({ text, file, absoluteFile }).documents;
    const document = parsed[index];
    if (!document) throw new Error(`The cached form of ${absoluteFile} does not match its text`);
    return document;
  };
  const checked = new Map<YamlDocument, DocumentStart>();
  const documents = options.entry.documents.map(({ value, line, column }, index) => {
    const document: YamlDocument = {
      file,
      absoluteFile,
      value,
      get doc() {
        return nodes(index).doc;
      },
      get lineCounter() {
        return nodes(index).lineCounter;
      },
    };
    checked.set(document, { line, column });
    return document;
  });
  return { documents, checked };
}

/**
 * Reads the goondan.yaml of a library bundle (one loaded beside every bundle, such as @goondan/base), or of the
 * bundle itself. A library does not change between runs, and a bundle rarely does, so once a file has loaded without
 * a problem its documents are kept in `cacheDir`, keyed by a hash of its text and of the checker
 * (checkerFingerprint): the next load of the same text skips parsing and checking it (and loading the yaml package).
 * A missing, corrupt or unwritable cache is a miss; `cacheDir: null` turns the cache off.
 */
export async function readLibraryFile(options: {
  bundleDir: string;
  rootDir: string;
  cacheDir: string | null;
}): Promise<LibraryFile> {
  const { bundleDir, rootDir, cacheDir } = options;
  const absoluteFile = join(bundleDir, BUNDLE_FILE_NAME);
  const uncached = async (): Promise<LibraryFile> => ({
    ...(await readBundleFile({ bundleDir, rootDir })),
    checked: new Map(),
    remember: () => {},
  });
  const key = cacheDir === null ? null : checkerFingerprint();
  if (cacheDir === null || key === null) return uncached();
  // Checked before reading, as readBundleFile does: a FIFO or device named goondan.yaml (the bundle's own file comes
  // through here too) must not block the load, nor a huge file be read; readBundleFile reports either.
  const stats = await stat(absoluteFile).catch(() => null);
  if (!stats?.isFile() || stats.size > yamlLimits.maxBytes) return uncached();
  const bytes = await readFile(absoluteFile).catch(() => null);
  if (bytes === null || bytes.byteLength > yamlLimits.maxBytes) return uncached();
  // A file that is not UTF-8 is readBundleFile's problem to report.
  const reading = readUtf8(bytes);
  if (reading.type === 'invalid') return uncached();
  const { text } = reading;

  const file = bundleRelativePath(rootDir, absoluteFile);
  const hasher = new Bun.CryptoHasher('sha256');
  hasher.update(`${key}\0`);
  hasher.update(text);
  const entryPath = join(cacheDir, `${hasher.digest('hex')}.json`);
  const entry = readEntry(entryPath);
  if (entry)
    return { ...cachedDocuments({ text, file, absoluteFile, entry }), problems: [], unreadable: [], remember() {} };

  const parsed = parseYamlDocuments({ text, file, absoluteFile });
  return {
    ...parsed,
    checked: new Map(),
    remember(starts) {
      if (parsed.problems.length > 0 || parsed.unreadable.length > 0) return;
      if (starts.length !== parsed.documents.length) return;
      const documents = parsed.documents.map((document, index) => ({
        value: document.value as Record<string, unknown>,
        line: starts[index]?.line ?? 0,
        column: starts[index]?.column ?? 0,
      }));
      const json = JSON.stringify({ format: 1, documents } satisfies CacheEntry);
      // Only data JSON keeps exactly (no .nan, no -0, no shared nodes that must stay shared) is cached.
      const stored = readableEntry(json);
      if (stored === null || !Bun.deepEquals(stored, { format: 1, documents }, true)) return;
      writeCacheFile({ dir: dirname(entryPath), path: entryPath, text: json });
    },
  };
}

function readableEntry(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
