/**
 * Bundle changesets (v1 §12.4 in v2 shape, docs/changesets.md): open a changeset (a git worktree of the bundle's
 * repository under the agent's workdir), edit it with file-system or bash, commit it. The commit answers ok,
 * rejected, conflict or failed; an ok revision is active on disk at once and agents pick it up between turns.
 */
import { isAbsolute, join, relative } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { changesetBundleDir, changesetLibraries } from '../../src/changesets/changeset-target.ts';
import { commitChangeset } from '../../src/changesets/commit-changeset.ts';
import type { FinishedActivation } from '../../src/changesets/finish-activation.ts';
import { listChanges } from '../../src/changesets/list-changes.ts';
import { type BundleRepository, locateBundleRepository } from '../../src/changesets/locate-bundle-repository.ts';
import { discardChangeset, openChangeset } from '../../src/changesets/open-changeset.ts';

function repositoryOf(ctx: ToolContext): Promise<BundleRepository> {
  return locateBundleRepository(changesetBundleDir(ctx));
}

/** A path as the file-system and bash tools take it: relative to the workdir when inside it. */
function forWorkdir(ctx: ToolContext, path: string): string {
  const inside = relative(ctx.workdir, path);
  return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** Says that an interrupted activation was finished, and that nothing of anyone's was lost. */
function finishedSentence(finished: FinishedActivation): string {
  return `An earlier activation of ${finished.revision.slice(0, 12)} had been interrupted before the bundle files followed it (they were still at ${finished.previous.slice(0, 12)}): it was finished first, so ${finished.files.join(', ')} are at ${finished.revision.slice(0, 12)} now. Nothing was lost: the files only held what ${finished.previous.slice(0, 12)} has.`;
}

function allowedPaths(ctx: ToolContext): string[] {
  const value = ctx.config.allowedPaths;
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : ['**'];
}

export const handlers = {
  open_changeset: async (ctx: ToolContext, input: { name?: string }) => {
    const repository = await repositoryOf(ctx);
    const opened = await openChangeset({ repository, parentDir: join(ctx.workdir, 'changesets'), name: input.name });
    return {
      changeset: opened.changeset,
      workdir: forWorkdir(ctx, opened.bundleDir),
      base: opened.base,
      branch: opened.branch,
      created: opened.created,
      next: `Edit the bundle under ${forWorkdir(ctx, opened.bundleDir)} (file-system or bash), then call swarm-bundle__commit_changeset with changeset '${opened.changeset}'.`,
    };
  },
  commit_changeset: async (ctx: ToolContext, input: { changeset: string; message: string }) => {
    const repository = await repositoryOf(ctx);
    const outcome = await commitChangeset({
      repository,
      changeset: input.changeset,
      message: input.message,
      allowedPaths: allowedPaths(ctx),
      libraries: changesetLibraries(ctx),
      author: { name: `goondan agent ${ctx.agentName}/${ctx.instanceKey}`, email: `${ctx.agentName}@goondan.invalid` },
    });
    if (outcome.status === 'rejected') {
      const at = forWorkdir(ctx, join(ctx.workdir, 'changesets', input.changeset, repository.prefix));
      return {
        ...outcome,
        problems: outcome.problems.map((problem) => ({
          ...problem,
          at: `${join(at, problem.file)}:${problem.line}:${problem.column}`,
        })),
        // The files of a changeset over a limit, as the file-system tool takes them (to shrink or delete).
        ...(outcome.tooLarge
          ? {
              tooLarge: {
                ...outcome.tooLarge,
                largest: outcome.tooLarge.largest.map((file) => ({ ...file, at: join(at, file.path) })),
              },
            }
          : {}),
      };
    }
    if (outcome.status !== 'ok') return outcome;
    const finished = outcome.finishedActivation ? `${finishedSentence(outcome.finishedActivation)} ` : '';
    if (outcome.revision === outcome.previous)
      return {
        ...outcome,
        activation: `${finished}Nothing changed: the active revision already had everything the changeset changes, so no revision was made; ${outcome.revision.slice(0, 12)} stays active. The changeset is closed.`,
      };
    return {
      ...outcome,
      activation: `${finished}The bundle files are at the new revision now. This turn finishes on the revision it started with; each agent whose resources changed runs its next turn on the new one (restarted between turns by the Orchestrator under gdn run --watch).`,
    };
  },
  discard_changeset: async (ctx: ToolContext, input: { changeset: string }) => {
    await discardChangeset({ repository: await repositoryOf(ctx), changeset: input.changeset });
    return { discarded: input.changeset };
  },
  status: async (ctx: ToolContext) => {
    const overview = await listChanges({ repository: await repositoryOf(ctx), limit: 10 });
    return {
      activeRef: overview.activeRef,
      active: overview.active,
      open: overview.open.map((entry) => ({
        changeset: entry.changeset,
        branch: entry.branch,
        tip: entry.tip,
        worktree: entry.worktree === null ? null : forWorkdir(ctx, entry.worktree),
      })),
      activated: overview.activated,
      ...(overview.finishedActivation
        ? {
            finishedActivation: { ...overview.finishedActivation, note: finishedSentence(overview.finishedActivation) },
          }
        : {}),
    };
  },
};
