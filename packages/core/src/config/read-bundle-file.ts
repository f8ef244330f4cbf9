import { readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { createProblem } from './create-problem.ts';
import { BUNDLE_FILE_NAME } from './find-bundle-dir.ts';
import type { YamlDocument } from './locate-field.ts';
import { parseYamlDocuments, yamlLimits } from './parse-yaml-documents.ts';
import { readUtf8 } from './read-utf8.ts';
import type { BundleProblem } from './resources.ts';
import type { UnreadableDocument } from './unreadable-document.ts';

/** How files are named in problems: relative to the bundle root, with forward slashes (`../base/goondan.yaml`). */
export function bundleRelativePath(rootDir: string, absolutePath: string): string {
  return relative(rootDir, absolutePath).split(sep).join('/');
}

/** Reads and splits the goondan.yaml of `bundleDir`; a missing or oversized file is a problem, not a throw. */
export async function readBundleFile(options: { bundleDir: string; rootDir: string }): Promise<{
  documents: YamlDocument[];
  problems: BundleProblem[];
  /** Documents that did not parse, with the kind and name still readable in them. */
  unreadable: UnreadableDocument[];
}> {
  const absoluteFile = join(options.bundleDir, BUNDLE_FILE_NAME);
  const file = bundleRelativePath(options.rootDir, absoluteFile);
  const atStart = { file, line: 1, column: 1 };
  const stats = await stat(absoluteFile).catch(() => null);
  if (!stats?.isFile()) {
    const message = `No ${BUNDLE_FILE_NAME} in ${options.bundleDir}`;
    const problems = [createProblem({ code: 'E_BUNDLE_NOT_FOUND', message, location: atStart })];
    return { documents: [], problems, unreadable: [] };
  }
  // Refuse before reading, so a huge file is never loaded into memory.
  if (stats.size > yamlLimits.maxBytes) {
    const message = `${file} is ${stats.size} bytes; bundle files may be at most ${yamlLimits.maxBytes} bytes`;
    return {
      documents: [],
      problems: [createProblem({ code: 'E_YAML_LIMIT', message, location: atStart })],
      unreadable: [{}],
    };
  }
  const reading = readUtf8(await readFile(absoluteFile));
  if (reading.type === 'invalid') {
    // Read leniently, the byte would become U+FFFD in a name, a prompt or a pattern without a word said.
    const byte = `0x${reading.byte.toString(16).toUpperCase().padStart(2, '0')}`;
    const utf16 =
      reading.offset === 0 && (reading.byte === 0xff || reading.byte === 0xfe) ? ' (it looks like UTF-16)' : '';
    const message = `${file} is not UTF-8${utf16}: byte ${byte} at offset ${reading.offset} is not part of a UTF-8 character`;
    const location = { file, line: reading.line, column: reading.column };
    const suggestion = 'Save the file as UTF-8 (YAML files are Unicode text); gdn migrate refuses it too until then.';
    return {
      documents: [],
      problems: [createProblem({ code: 'E_YAML_PARSE', message, location, suggestion })],
      unreadable: [{}],
    };
  }
  return parseYamlDocuments({ text: reading.text, file, absoluteFile });
}
