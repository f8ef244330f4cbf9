import type { Database } from 'bun:sqlite';
import { randomUUID } from 'node:crypto';
import { GoondanError } from '@goondan/core/errors';
import type { Profile } from '../people/people-store.ts';
import { inviteCodeHash, newInviteCode } from './invite-code.ts';

/** The id of the default space: what the bundle had before workspaces, and where an instance starts. */
export const PERSONAL_SPACE = 'personal';
export const DEFAULT_INVITE_HOURS = 72;
const HOUR = 3_600_000;

export interface Workspace {
  id: string;
  name: string;
}

export interface Invite {
  code: string;
  expiresAt: string;
  singleUse: boolean;
}

type SpaceRow = { id: string; name: string };

/** The workspace an instance is in, or null for the personal space (also when its person is not a member). */
export function currentWorkspace(db: Database, speaker: string, person: Profile | null): Workspace | null {
  if (!person) return null;
  return (
    db
      .query<SpaceRow, [string, number]>(
        `SELECT s.id, s.name FROM workspace_current c JOIN workspace_spaces s ON s.id = c.workspace_id
         JOIN workspace_members m ON m.workspace_id = s.id AND m.profile_id = ?2 WHERE c.speaker = ?1`,
      )
      .get(speaker, person.id) ?? null
  );
}

function memberSpaces(db: Database, person: Profile): (SpaceRow & { role: string })[] {
  return db
    .query<SpaceRow & { role: string }, [number]>(
      `SELECT s.id, s.name, m.role FROM workspace_members m JOIN workspace_spaces s ON s.id = m.workspace_id
       WHERE m.profile_id = ? ORDER BY s.created_at, s.id`,
    )
    .all(person.id);
}

/** A workspace of `person` named by id or name (case ignored), or `personal`; null stands for the personal space. */
export function findMemberSpace(db: Database, person: Profile, ref: string): Workspace | null {
  const wanted = ref.trim().toLowerCase();
  if (wanted === PERSONAL_SPACE) return null;
  const spaces = memberSpaces(db, person);
  const found =
    spaces.find((space) => space.id === ref.trim()) ?? spaces.find((space) => space.name.toLowerCase() === wanted);
  if (found) return { id: found.id, name: found.name };
  const known = spaces.slice(0, 20).map((space) => `${space.name} (${space.id})`);
  throw new GoondanError('E_WORKSPACE_NOT_FOUND', `No workspace '${ref}' of ${person.name}'s.`, {
    suggestion:
      known.length > 0
        ? `Workspaces of ${person.name}: ${known.join(', ')}, and '${PERSONAL_SPACE}'. Join another with workspace__join_by_invite.`
        : `${person.name} belongs to no workspace yet: create one with workspace__create or join one with workspace__join_by_invite.`,
  });
}

function setCurrent(db: Database, speaker: string, workspace: Workspace | null): void {
  if (workspace === null) db.query('DELETE FROM workspace_current WHERE speaker = ?').run(speaker);
  else
    db.query(
      'INSERT INTO workspace_current (speaker, workspace_id) VALUES (?, ?) ON CONFLICT (speaker) DO UPDATE SET workspace_id = excluded.workspace_id',
    ).run(speaker, workspace.id);
}

/** Replaces the workspace's invite with a new code (the old one stops working); answers the code once. */
function issueInvite(
  db: Database,
  input: { workspaceId: string; person: Profile; hours: number; singleUse: boolean; now: number },
): Invite {
  const code = newInviteCode();
  const expiresAt = input.now + input.hours * HOUR;
  db.query('DELETE FROM workspace_invites WHERE workspace_id = ?').run(input.workspaceId);
  db.query(
    `INSERT INTO workspace_invites (code_hash, workspace_id, expires_at, single_use, created_by, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(inviteCodeHash(code), input.workspaceId, expiresAt, input.singleUse ? 1 : 0, input.person.id, input.now);
  return { code, expiresAt: new Date(expiresAt).toISOString(), singleUse: input.singleUse };
}

export function checkedHours(value: unknown): number {
  if (value === undefined) return DEFAULT_INVITE_HOURS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 24 * 30)
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `expires_in_hours must be more than 0 and at most 720, got ${value}.`,
      {
        suggestion: `Leave it out for ${DEFAULT_INVITE_HOURS} hours, or give e.g. 24 for a day.`,
      },
    );
  return value;
}

/** workspace__create: a new workspace of `person` (owner), with an invite code; the instance switches to it. */
export function createWorkspace(
  db: Database,
  input: { speaker: string; person: Profile; name: string; hours: number; singleUse: boolean; now: number },
): { workspace: Workspace; invite: Invite } {
  return db
    .transaction(() => {
      const taken = memberSpaces(db, input.person).find(
        (space) => space.name.toLowerCase() === input.name.toLowerCase(),
      );
      if (taken || input.name.toLowerCase() === PERSONAL_SPACE)
        throw new GoondanError(
          'E_WORKSPACE_NAME_TAKEN',
          `${input.person.name} already has a workspace called '${input.name}'.`,
          {
            suggestion: taken
              ? `Switch to it (workspace__switch { id: '${taken.id}' }) or pick another name.`
              : 'Pick another name.',
          },
        );
      const workspace = { id: randomUUID(), name: input.name };
      const at = new Date(input.now).toISOString();
      db.query('INSERT INTO workspace_spaces (id, name, created_by, created_at) VALUES (?, ?, ?, ?)').run(
        workspace.id,
        workspace.name,
        input.person.id,
        at,
      );
      db.query(
        "INSERT INTO workspace_members (workspace_id, profile_id, role, joined_at) VALUES (?, ?, 'owner', ?)",
      ).run(workspace.id, input.person.id, at);
      const invite = issueInvite(db, { workspaceId: workspace.id, ...input });
      setCurrent(db, input.speaker, workspace);
      return { workspace, invite };
    })
    .immediate();
}

/**
 * workspace__join_by_invite: checks the code (unknown or replaced, expired, single-use and spent are three coded
 * errors), makes `person` a member and switches the instance to the workspace. Someone already a member does not
 * spend a single-use code.
 */
export function joinByInvite(
  db: Database,
  input: { speaker: string; person: Profile; code: string; now: number },
): { workspace: Workspace; alreadyMember: boolean } {
  return db
    .transaction(() => {
      const invite = db
        .query<
          { workspace_id: string; name: string; expires_at: number; single_use: number; used_by: number | null },
          [string]
        >(
          `SELECT i.workspace_id, s.name, i.expires_at, i.single_use, i.used_by FROM workspace_invites i
           JOIN workspace_spaces s ON s.id = i.workspace_id WHERE i.code_hash = ?`,
        )
        .get(inviteCodeHash(input.code));
      if (!invite)
        throw new GoondanError(
          'E_WORKSPACE_INVITE_INVALID',
          'No workspace has this invite code (it may have been replaced by a new one).',
          {
            suggestion: 'Ask a member of the workspace for its current invite code.',
          },
        );
      const workspace = { id: invite.workspace_id, name: invite.name };
      const member = db
        .query<{ role: string }, [string, number]>(
          'SELECT role FROM workspace_members WHERE workspace_id = ? AND profile_id = ?',
        )
        .get(workspace.id, input.person.id);
      if (!member) {
        if (invite.expires_at <= input.now)
          throw new GoondanError(
            'E_WORKSPACE_INVITE_EXPIRED',
            `The invite code for '${workspace.name}' expired at ${new Date(invite.expires_at).toISOString()}.`,
            { suggestion: 'Ask a member to make a new code with workspace__regenerate_invite_code.' },
          );
        if (invite.single_use === 1 && invite.used_by !== null)
          throw new GoondanError(
            'E_WORKSPACE_INVITE_USED',
            `The invite code for '${workspace.name}' was for one person and has been used.`,
            {
              suggestion: 'Ask a member for a new code (workspace__regenerate_invite_code).',
            },
          );
        db.query(
          "INSERT INTO workspace_members (workspace_id, profile_id, role, joined_at) VALUES (?, ?, 'member', ?)",
        ).run(workspace.id, input.person.id, new Date(input.now).toISOString());
        db.query(
          'UPDATE workspace_invites SET used_by = ?, used_at = ? WHERE workspace_id = ? AND used_by IS NULL',
        ).run(input.person.id, input.now, workspace.id);
      }
      setCurrent(db, input.speaker, workspace);
      return { workspace, alreadyMember: member !== null };
    })
    .immediate();
}

/** workspace__switch: the instance moves to a workspace of its person, or back to the personal space. */
export function switchWorkspace(
  db: Database,
  input: { speaker: string; person: Profile; ref: string },
): Workspace | null {
  const workspace = findMemberSpace(db, input.person, input.ref);
  setCurrent(db, input.speaker, workspace);
  return workspace;
}

/** workspace__regenerate_invite_code: a new code for a workspace of `person`; the old code stops working. */
export function regenerateInvite(
  db: Database,
  input: { person: Profile; ref: string; hours: number; singleUse: boolean; now: number },
): { workspace: Workspace; invite: Invite } {
  return db
    .transaction(() => {
      const workspace = findMemberSpace(db, input.person, input.ref);
      if (workspace === null)
        throw new GoondanError('E_TOOL_INVALID_ARGS', 'The personal space has no invite code.', {
          suggestion: 'Create a workspace to share (workspace__create) and invite people to that one.',
        });
      return { workspace, invite: issueInvite(db, { workspaceId: workspace.id, ...input }) };
    })
    .immediate();
}

/** workspace__list: the person's workspaces with their members (names), and which one the instance is in. */
export function listWorkspaces(db: Database, input: { speaker: string; person: Profile | null; now: number }) {
  const current = currentWorkspace(db, input.speaker, input.person);
  const spaces = input.person ? memberSpaces(db, input.person) : [];
  const members = db.query<{ name: string; role: string }, [string]>(
    `SELECT p.name, m.role FROM workspace_members m JOIN people_profiles p ON p.id = m.profile_id
     WHERE m.workspace_id = ? ORDER BY m.joined_at, p.name`,
  );
  const invites = db.query<{ expires_at: number; single_use: number; used_by: number | null }, [string]>(
    'SELECT expires_at, single_use, used_by FROM workspace_invites WHERE workspace_id = ?',
  );
  return [
    { id: PERSONAL_SPACE, name: 'Personal', current: current === null, personal: true },
    ...spaces.map((space) => {
      const invite = invites.get(space.id);
      const usable =
        invite !== null && invite.expires_at > input.now && !(invite.single_use === 1 && invite.used_by !== null);
      return {
        id: space.id,
        name: space.name,
        role: space.role,
        current: current?.id === space.id,
        members: members.all(space.id),
        invite: invite
          ? { usable, expiresAt: new Date(invite.expires_at).toISOString(), singleUse: invite.single_use === 1 }
          : null,
      };
    }),
  ];
}
