import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Bundle } from '@goondan/core';
import { renderToolTypes, TOOL_TYPES_FILE } from './render-tool-types.ts';

export interface ToolTypesFile {
  /** Absolute path of goondan-tools.d.ts. */
  path: string;
  /** What `gdn types` would write now. */
  expected: string;
  /** What is there; null when there is no file. */
  current: string | null;
}

/** The bundle's goondan-tools.d.ts: what it holds and what the bundle's schemas say it should hold. */
export async function readToolTypesFile(bundle: Bundle): Promise<ToolTypesFile> {
  const path = join(bundle.rootDir, TOOL_TYPES_FILE);
  const current = await readFile(path, 'utf8').catch(() => null);
  return { path, expected: renderToolTypes(bundle.resources.values()), current };
}

/** Writes goondan-tools.d.ts when its text changed; true when it wrote. */
export async function writeToolTypesFile(bundle: Bundle): Promise<boolean> {
  const file = await readToolTypesFile(bundle);
  if (file.current === file.expected) return false;
  await writeFile(file.path, file.expected);
  return true;
}
