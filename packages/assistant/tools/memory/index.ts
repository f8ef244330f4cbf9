import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import {
  checkedMemoryText,
  type MemoryOwner,
  type MemoryScope,
  saveMemory,
  searchMemory,
  updateMemory,
} from '../../src/memory/memory-store.ts';
import { peopleDatabase, speakerOf } from '../../src/people/people-database.ts';
import { currentProfile } from '../../src/people/people-store.ts';
import { callerWorkspace } from '../../src/workspaces/caller-workspace.ts';

function checkedScope(scope: unknown): MemoryScope {
  if (scope === 'workspace' || scope === 'personal') return scope;
  throw new GoondanError(
    'E_TOOL_INVALID_ARGS',
    `'scope' must be 'workspace' or 'personal', got ${JSON.stringify(scope)}.`,
    {
      suggestion: "Use 'personal' for a fact about the current user, 'workspace' for one everybody shares.",
    },
  );
}

/**
 * The owner of `scope` for this call: workspace memory is the current workspace's (workspace__switch; the personal
 * space by default), personal memory needs a current user (user__set_current).
 */
function ownerFor(ctx: ToolContext, scope: MemoryScope): MemoryOwner {
  if (scope === 'workspace') return { scope, owner: null, workspace: callerWorkspace(ctx)?.id ?? null };
  const person = currentProfile(peopleDatabase(ctx), speakerOf(ctx));
  if (!person) {
    throw new GoondanError('E_USER_NOT_SET', 'Personal memory belongs to the current user, and none is set.', {
      suggestion:
        "Call user__set_current with the speaker's name first (profile__create makes a new person), or use scope 'workspace'.",
    });
  }
  return { scope, owner: person.id };
}

/** Names the workspace a workspace memory went to (left out for the personal space, as before workspaces). */
function workspaceField(owner: MemoryOwner): { workspace?: string } {
  return owner.workspace ? { workspace: owner.workspace } : {};
}

export const handlers = {
  save: (ctx: ToolContext, input: { content: string; scope: MemoryScope }) => {
    const content = checkedMemoryText(input.content, 'content');
    const owner = ownerFor(ctx, checkedScope(input.scope));
    const entry = saveMemory(peopleDatabase(ctx), owner, content);
    return { saved: entry.content, scope: entry.scope, id: entry.id, ...workspaceField(owner) };
  },
  update: (ctx: ToolContext, input: { old_content: string; new_content: string; scope: MemoryScope }) => {
    const oldContent = checkedMemoryText(input.old_content, 'old_content');
    const newContent = checkedMemoryText(input.new_content, 'new_content');
    const owner = ownerFor(ctx, checkedScope(input.scope));
    const { before, after } = updateMemory(peopleDatabase(ctx), owner, oldContent, newContent);
    return { updated: after.content, before, scope: after.scope, id: after.id };
  },
  search: (ctx: ToolContext, input: { query: string; scope?: MemoryScope; limit?: number }) => {
    const query = checkedMemoryText(input.query, 'query');
    const scope = input.scope === undefined ? undefined : checkedScope(input.scope);
    const db = peopleDatabase(ctx);
    const person = currentProfile(db, speakerOf(ctx));
    if (scope === 'personal' && !person) ownerFor(ctx, 'personal');
    const limit = input.limit ?? 10;
    const workspace = callerWorkspace(ctx);
    const options = {
      personalOwner: person?.id ?? null,
      workspace: workspace?.id ?? null,
      ...(scope ? { scope } : {}),
      limit,
    };
    // Every word first; when nothing has them all, the memories with most of them.
    let found = searchMemory(db, query, { ...options, mode: 'all' });
    if (found.length === 0) found = searchMemory(db, query, { ...options, mode: 'any' });
    return {
      query,
      currentUser: person?.name ?? null,
      ...(workspace ? { workspace: workspace.name } : {}),
      memories: found.map((entry) => ({ content: entry.content, scope: entry.scope, updatedAt: entry.updatedAt })),
    };
  },
};
