import type { Database } from 'bun:sqlite';
import type { GuardrailPlan, JsonValue } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { resolveProfile } from './people-store.ts';

/** What happens to the personal memories when two profiles become one (docs/assistant.md#people). */
export type MergeMemoryMode = 'append' | 'skip' | 'replace';
export const mergeMemoryModes: readonly MergeMemoryMode[] = ['append', 'skip', 'replace'];

type MemoryRow = { id: number; content: string };

function personalMemories(db: Database, owner: number): MemoryRow[] {
  return db
    .query<MemoryRow, [number]>(
      "SELECT id, content FROM memory_entries WHERE scope = 'personal' AND owner = ? ORDER BY id",
    )
    .all(owner);
}

/** The workspaces (docs/assistant.md#workspaces) a profile belongs to; none when the store has no workspaces yet. */
function memberships(db: Database, profile: number): { workspace_id: string; name: string; role: string }[] {
  const present = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'workspace_members'").get();
  if (!present) return [];
  return db
    .query<{ workspace_id: string; name: string; role: string }, [number]>(
      `SELECT m.workspace_id, s.name, m.role FROM workspace_members m JOIN workspace_spaces s ON s.id = m.workspace_id
       WHERE m.profile_id = ? ORDER BY s.name`,
    )
    .all(profile);
}

/** Everything a merge would do, as rows of `changes`, and the ids it acts on. */
function mergeSteps(db: Database, sourceName: string, targetName: string, mode: MergeMemoryMode) {
  const source = resolveProfile(db, sourceName);
  const target = resolveProfile(db, targetName);
  if (source.id === target.id) {
    throw new GoondanError(
      'E_PROFILE_MERGE_SELF',
      `'${sourceName}' and '${targetName}' are the same profile ('${target.name}').`,
      {
        suggestion: 'Name two different profiles: source is the one that goes away, target the one that stays.',
      },
    );
  }
  const sourceMemories = personalMemories(db, source.id);
  const targetMemories = personalMemories(db, target.id);
  const targetTexts = new Set(targetMemories.map((row) => row.content.toLowerCase()));
  const moved =
    mode === 'skip'
      ? []
      : sourceMemories.filter((row) => mode === 'replace' || !targetTexts.has(row.content.toLowerCase()));
  const movedIds = new Set(moved.map((row) => row.id));
  const dropped = sourceMemories.filter((row) => !movedIds.has(row.id));
  const replaced = mode === 'replace' ? targetMemories : [];
  const aliases = [source.name, ...source.aliases].filter((alias) => alias.toLowerCase() !== target.name.toLowerCase());
  const speakers = db
    .query<{ speaker: string }, [number]>('SELECT speaker FROM people_current WHERE profile_id = ? ORDER BY speaker')
    .all(source.id)
    .map((row) => row.speaker);
  const workspaces = memberships(db, source.id);
  const changes: JsonValue[] = [
    ...moved.map((row) => ({ memory: row.content, action: `moves to ${target.name}` })),
    ...dropped.map((row) => ({
      memory: row.content,
      action: mode === 'skip' ? 'deleted (skip)' : `deleted (${target.name} already has it)`,
    })),
    ...replaced.map((row) => ({ memory: row.content, action: `deleted from ${target.name} (replace)` })),
    ...aliases.map((alias) => ({ alias, action: `becomes an alias of ${target.name}` })),
    ...speakers.map((speaker) => ({ currentUserOf: speaker, action: `now ${target.name}` })),
    ...workspaces.map((space) => ({ workspace: space.name, action: `${target.name} is a member (${space.role})` })),
    { profile: source.name, action: 'removed' },
  ];
  return { source, target, moved, dropped, replaced, aliases, speakers, workspaces, changes };
}

/**
 * Plans merging profile `source` into `target` for withGuardrail: the plan lists every change, and `apply` makes
 * them all in ONE transaction (worked out again inside it), so a failure part-way changes nothing.
 */
export function planMerge(db: Database, sourceName: string, targetName: string, mode: MergeMemoryMode): GuardrailPlan {
  const planned = mergeSteps(db, sourceName, targetName, mode);
  return {
    changes: planned.changes,
    summary: `merge '${planned.source.name}' into '${planned.target.name}': ${planned.moved.length} memories moved, ${planned.dropped.length + planned.replaced.length} deleted, ${planned.aliases.length} aliases, ${planned.speakers.length} current-user links`,
    apply: () =>
      db
        .transaction(() => {
          const steps = mergeSteps(db, sourceName, targetName, mode);
          const { source, target } = steps;
          for (const row of [...steps.dropped, ...steps.replaced]) {
            db.query('DELETE FROM memory_search WHERE rowid = ?').run(row.id);
            db.query('DELETE FROM memory_entries WHERE id = ?').run(row.id);
          }
          db.query('UPDATE memory_entries SET owner = ? WHERE scope = ? AND owner = ?').run(
            target.id,
            'personal',
            source.id,
          );
          db.query('UPDATE people_current SET profile_id = ? WHERE profile_id = ?').run(target.id, source.id);
          for (const space of steps.workspaces) {
            // Where both were members, the target keeps the higher role.
            db.query(
              `INSERT INTO workspace_members (workspace_id, profile_id, role, joined_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (workspace_id, profile_id) DO UPDATE SET role = CASE WHEN excluded.role = 'owner' THEN 'owner' ELSE role END`,
            ).run(space.workspace_id, target.id, space.role, new Date().toISOString());
          }
          if (steps.workspaces.length > 0)
            db.query('DELETE FROM workspace_members WHERE profile_id = ?').run(source.id);
          db.query('DELETE FROM people_aliases WHERE profile_id = ?').run(source.id);
          db.query('DELETE FROM people_profiles WHERE id = ?').run(source.id);
          for (const alias of steps.aliases)
            db.query('INSERT INTO people_aliases (alias, profile_id) VALUES (?, ?)').run(alias, target.id);
          return {
            merged: source.name,
            into: target.name,
            memoriesMoved: steps.moved.length,
            memoriesDeleted: steps.dropped.length + steps.replaced.length,
            aliasesAdded: steps.aliases,
            currentUserRemapped: steps.speakers,
            ...(steps.workspaces.length > 0 ? { workspacesJoined: steps.workspaces.map((space) => space.name) } : {}),
          };
        })
        .immediate(),
  };
}
