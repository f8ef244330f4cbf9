import { GoondanError, type ToolContext, withGuardrail } from '@goondan/core';
import { type MergeMemoryMode, mergeMemoryModes, planMerge } from '../../src/people/merge-profiles.ts';
import { peopleDatabase } from '../../src/people/people-database.ts';
import { addAlias, checkedName, createProfile, profileView, renameProfile } from '../../src/people/people-store.ts';

function checkedMode(mode: unknown): MergeMemoryMode {
  if (mergeMemoryModes.includes(mode as MergeMemoryMode)) return mode as MergeMemoryMode;
  throw new GoondanError(
    'E_TOOL_INVALID_ARGS',
    `'merge_memory' must be append, skip or replace, got ${JSON.stringify(mode)}.`,
    {
      suggestion:
        "append keeps both people's personal memories, skip drops the source's, replace keeps only the source's.",
    },
  );
}

export const handlers = {
  create: (ctx: ToolContext, input: { name: string; aliases?: string[]; description?: string }) => {
    const name = checkedName(input.name, 'name');
    const aliases = (input.aliases ?? []).map((alias) => checkedName(alias, 'aliases'));
    const description = typeof input.description === 'string' ? input.description.trim().slice(0, 1000) : '';
    return { created: profileView(createProfile(peopleDatabase(ctx), { name, aliases, description })) };
  },
  add_alias: (ctx: ToolContext, input: { name: string; alias: string }) => {
    const profile = addAlias(peopleDatabase(ctx), checkedName(input.name, 'name'), checkedName(input.alias, 'alias'));
    return { profile: profileView(profile) };
  },
  rename: (ctx: ToolContext, input: { from: string; to: string }) => {
    const profile = renameProfile(peopleDatabase(ctx), checkedName(input.from, 'from'), checkedName(input.to, 'to'));
    return { profile: profileView(profile) };
  },
  // Every merge needs confirm: true (confirmAbove 0): it cannot be undone, so the model previews it first.
  merge: withGuardrail(
    (ctx: ToolContext, input: { source: string; target: string; merge_memory: MergeMemoryMode }) =>
      planMerge(
        peopleDatabase(ctx),
        checkedName(input.source, 'source'),
        checkedName(input.target, 'target'),
        checkedMode(input.merge_memory),
      ),
    { confirmAbove: 0 },
  ),
};
