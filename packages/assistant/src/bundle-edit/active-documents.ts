import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { type Document, parseAllDocuments } from 'yaml';

/** The active bundle's goondan.yaml, read-only. */
export async function activeDocuments(ctx: ToolContext): Promise<Document[]> {
  const { changesetBundleDir } = await import('@goondan/base');
  return parseAllDocuments(await readFile(join(changesetBundleDir(ctx), 'goondan.yaml'), 'utf8')) as Document[];
}
