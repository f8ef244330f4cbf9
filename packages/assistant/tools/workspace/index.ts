/**
 * Workspaces shared by the people one host serves (docs/assistant.md#workspaces): kept in the bundle's
 * assistant.db, no outside service. Members are people profiles (user__set_current says who speaks); each agent
 * instance is in one workspace at a time, and workspace memory and kanban boards are that workspace's.
 */
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { displayName } from '../../src/names/display-name.ts';
import { speakerOf } from '../../src/people/people-database.ts';
import { currentProfile, type Profile } from '../../src/people/people-store.ts';
import { workspaceDatabase } from '../../src/workspaces/workspace-database.ts';
import {
  checkedHours,
  createWorkspace,
  joinByInvite,
  listWorkspaces,
  PERSONAL_SPACE,
  regenerateInvite,
  switchWorkspace,
} from '../../src/workspaces/workspace-store.ts';

function caller(ctx: ToolContext) {
  const db = workspaceDatabase(ctx);
  const speaker = speakerOf(ctx);
  return { db, speaker, person: currentProfile(db, speaker) };
}

function needPerson(person: Profile | null): Profile {
  if (person) return person;
  throw new GoondanError('E_USER_NOT_SET', 'Workspaces belong to people, and nobody is set as the current user.', {
    suggestion: "Call user__set_current with the speaker's name first (profile__create makes a new person).",
  });
}

function checkedName(value: unknown): string {
  const name = displayName(value, 'the workspace name');
  if (name === '' || name.length > 100)
    throw new GoondanError('E_TOOL_INVALID_ARGS', "'name' must be 1 to 100 characters.", {
      suggestion: "Name the workspace after who shares it, e.g. 'Family' or '우리 팀'.",
    });
  return name;
}

function checkedRef(value: unknown, field: string): string {
  const ref = typeof value === 'string' ? value.trim() : '';
  if (ref === '' || ref.length > 100)
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${field}' must be 1 to 100 characters.`, {
      suggestion: 'Use an id or name from workspace__list.',
    });
  return ref;
}

export const handlers = {
  create: (ctx: ToolContext, input: { name: string; expires_in_hours?: number; single_use?: boolean }) => {
    const { db, speaker, person } = caller(ctx);
    const created = createWorkspace(db, {
      speaker,
      person: needPerson(person),
      name: checkedName(input.name),
      hours: checkedHours(input.expires_in_hours),
      singleUse: input.single_use === true,
      now: Date.now(),
    });
    return { ...created, current: true, note: 'Share the invite code with the people to add; it is shown only now.' };
  },
  join_by_invite: (ctx: ToolContext, input: { invite_code: string }) => {
    const { db, speaker, person } = caller(ctx);
    const joined = joinByInvite(db, {
      speaker,
      person: needPerson(person),
      code: checkedRef(input.invite_code, 'invite_code'),
      now: Date.now(),
    });
    return { ...joined, current: true };
  },
  list: (ctx: ToolContext) => {
    const { db, speaker, person } = caller(ctx);
    return { currentUser: person?.name ?? null, workspaces: listWorkspaces(db, { speaker, person, now: Date.now() }) };
  },
  switch: (ctx: ToolContext, input: { id: string }) => {
    const { db, speaker, person } = caller(ctx);
    const workspace = switchWorkspace(db, { speaker, person: needPerson(person), ref: checkedRef(input.id, 'id') });
    return { current: workspace ?? { id: PERSONAL_SPACE, name: 'Personal' } };
  },
  regenerate_invite_code: (
    ctx: ToolContext,
    input: { id: string; expires_in_hours?: number; single_use?: boolean },
  ) => {
    const { db, person } = caller(ctx);
    const regenerated = regenerateInvite(db, {
      person: needPerson(person),
      ref: checkedRef(input.id, 'id'),
      hours: checkedHours(input.expires_in_hours),
      singleUse: input.single_use === true,
      now: Date.now(),
    });
    return { ...regenerated, note: 'The previous code no longer works.' };
  },
};
