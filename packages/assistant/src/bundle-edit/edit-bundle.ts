import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type JsonValue, type ToolContext, writeEditedYaml } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import type { Document } from 'yaml';

/**
 * The bundle's goondan.yaml as editable documents. Edit them with the yaml Document API; only what the edit
 * changes is written back (writeEditedYaml), so comments and formatting of everything else stay byte for byte.
 */
export interface BundleDocuments {
  documents: Document[];
  /** Edits of files beside goondan.yaml, bundle-relative path → new text. */
  files: Map<string, string>;
  bundleDir: string;
}

const activation =
  'The change is committed and active on disk; it takes effect between turns: the agents it changes run their next turn on the new revision.';
const unchanged = 'Nothing changed: the bundle already says this, so no revision was made.';

/**
 * Changes the bundle the agent runs through a changeset (docs/changesets.md): opens one, lets `edit` change the
 * parsed goondan.yaml, writes back what it changed, commits (validated with the libraries the bundle runs with) and
 * answers the commit outcome. Anything but `ok` discards the changeset, so nothing is half-written, and its
 * suggestion says so; an `edit` that throws (bad input) discards it too and the error goes to the model.
 */
export async function editBundle(
  ctx: ToolContext,
  options: { message: string; edit: (bundle: BundleDocuments) => JsonValue | undefined },
): Promise<JsonValue> {
  const base = await import('@goondan/base');
  const { parseAllDocuments } = await import('yaml');
  const repository = await base.locateBundleRepository(base.changesetBundleDir(ctx));
  const opened = await base.openChangeset({ repository, parentDir: join(ctx.workdir, 'changesets') });
  const discard = () => base.discardChangeset({ repository, changeset: opened.changeset });
  let result: JsonValue | undefined;
  try {
    const file = join(opened.bundleDir, 'goondan.yaml');
    const text = await readFile(file, 'utf8');
    const documents = parseAllDocuments(text);
    if (!Array.isArray(documents))
      throw new GoondanError('E_CHANGESET_FAILED', 'goondan.yaml is empty.', {
        suggestion: 'Declare the bundle in goondan.yaml first.',
      });
    const broken = documents.find((document) => document.errors.length > 0);
    if (broken)
      throw new GoondanError('E_CHANGESET_FAILED', `goondan.yaml does not parse: ${broken.errors[0]?.message}`, {
        suggestion: 'Fix goondan.yaml by hand (gdn validate shows where), then try again.',
      });
    const files = new Map<string, string>();
    result = options.edit({ documents, files, bundleDir: opened.bundleDir });
    await writeFile(file, writtenBack(text, documents));
    for (const [path, content] of files) await writeFile(join(opened.bundleDir, path), content);
  } catch (thrown) {
    await discard();
    throw thrown;
  }
  const outcome = await base.commitChangeset({
    repository,
    changeset: opened.changeset,
    message: options.message,
    allowedPaths: ['**'],
    libraries: base.changesetLibraries(ctx),
    author: { name: `goondan agent ${ctx.agentName}/${ctx.instanceKey}`, email: `${ctx.agentName}@goondan.invalid` },
    afterFailure: { type: 'discard', retry: 'call the tool again' },
  });
  if (outcome.status !== 'ok') return outcome as unknown as JsonValue;
  return {
    ...(outcome as unknown as Record<string, JsonValue>),
    activation: outcome.revision === outcome.previous ? unchanged : activation,
    ...(result === undefined ? {} : { result }),
  };
}

function writtenBack(source: string, documents: Document[]): string {
  try {
    return writeEditedYaml({ source, documents });
  } catch (thrown) {
    throw new GoondanError(
      'E_CHANGESET_FAILED',
      `Could not write the change into goondan.yaml without rewriting the rest of it: ${(thrown as Error)?.message ?? thrown}. Nothing was changed.`,
      { suggestion: 'Make this change in goondan.yaml by hand (gdn validate checks it).' },
    );
  }
}
