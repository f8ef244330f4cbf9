import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { BUNDLE_FILE_NAME } from './find-bundle-dir.ts';
import type { YamlDocument } from './locate-field.ts';
import { parseYamlDocuments, yamlLimits } from './parse-yaml-documents.ts';
import { bundleRelativePath, readBundleFile } from './read-bundle-file.ts';
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

/** Entries kept in the cache directory; older ones are removed when a new one is written beyond twice as many. */
const keptEntries = 32;

/** `$XDG_CACHE_HOME/goondan/library-bundles`, else `~/.cache/goondan/library-bundles`. */
export function libraryCacheDir(env: Record<string, string | undefined> = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'goondan', 'library-bundles');
}

let fingerprint: string | null | undefined;

/**
 * What else than the file's text decides how it parses and checks: the source of the loader and its checks
 * (config/, errors/, tools/ of @goondan/core) and the versions of yaml and ajv. Any change there makes every entry
 * stale. Null (no caching) when the sources cannot be read, e.g. in a bundled build.
 */
function checkerFingerprint(): string | null {
  if (fingerprint !== undefined) return fingerprint;
  try {
    const hasher = new Bun.CryptoHasher('sha256');
    for (const folder of ['config', 'errors', 'tools']) {
      const dir = join(import.meta.dir, '..', folder);
      for (const name of readdirSync(dir).sort()) {
        if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
        hasher.update(`${folder}/${name}\0`);
        hasher.update(readFileSync(join(dir, name)));
      }
    }
    for (const dependency of ['yaml', 'ajv', 'ajv-formats']) {
      const version = (
        JSON.parse(readFileSync(require.resolve(`${dependency}/package.json`), 'utf8')) as {
          version?: unknown;
        }
      ).version;
      hasher.update(`${dependency}@${String(version)}\0`);
    }
    fingerprint = hasher.digest('hex');
  } catch {
    fingerprint = null;
  }
  return fingerprint;
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

/** Writes through a temporary file and a rename, so a concurrent reader sees the whole entry or none. */
function writeEntry(dir: string, path: string, json: string): void {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temporary, json);
    renameSync(temporary, path);
  } catch {
    // An unwritable cache only means the next load checks the file again.
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The directory itself could not be made: there is no temporary file.
    }
    return;
  }
  pruneEntries(dir);
}

function pruneEntries(dir: string): void {
  try {
    const names = readdirSync(dir);
    if (names.length <= 2 * keptEntries) return;
    const aged = names.map((name) => {
      const path = join(dir, name);
      return { path, time: statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0 };
    });
    aged.sort((a, b) => b.time - a.time);
    for (const { path } of aged.slice(keptEntries)) rmSync(path, { force: true });
  } catch {
    // Another process pruned at the same time, or the directory went away: nothing to do.
  }
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
 * Reads the goondan.yaml of a library bundle (one loaded beside every bundle, such as @goondan/base). A library
 * does not change between runs, so once it has loaded without a problem its documents are kept in `cacheDir`, keyed
 * by a hash of its text and of the checker (checkerFingerprint): the next load skips parsing and checking it.
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
  const text = await readFile(absoluteFile, 'utf8').catch(() => null);
  if (text === null || Buffer.byteLength(text, 'utf8') > yamlLimits.maxBytes) return uncached();

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
      writeEntry(dirname(entryPath), entryPath, json);
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
