import type { Database } from 'bun:sqlite';
import { GoondanError } from '@goondan/core/errors';
import { displayName, nameKey } from '../names/display-name.ts';

/** The longest profile name or alias, in characters. */
export const NAME_MAX_CHARS = 100;

export interface Profile {
  id: number;
  name: string;
  description: string;
  aliases: string[];
}

/**
 * Trimmed name in NFC, or a coded error for an empty or over-long one or one with a control character. Full-width
 * letters stay as typed: `Ｂｏｂ` and `Bob` are two names (folding them, NFKC, would also rewrite Korean jamo).
 */
export function checkedName(value: unknown, field: string): string {
  const name = displayName(value, `'${field}'`);
  if (name === '') {
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${field}' is empty.`, {
      suggestion: `Give '${field}' a person's name, e.g. 'Minji'.`,
    });
  }
  if (name.length > NAME_MAX_CHARS) {
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `'${field}' has ${name.length} characters; at most ${NAME_MAX_CHARS}.`,
      {
        suggestion: 'Use a short name; put the rest in the description.',
      },
    );
  }
  return name;
}

function profileById(db: Database, id: number): Profile {
  const row = db
    .query<{ id: number; name: string; description: string }, [number]>(
      'SELECT id, name, description FROM people_profiles WHERE id = ?',
    )
    .get(id);
  if (!row) throw new GoondanError('E_PROFILE_NOT_FOUND', `No profile with id ${id}.`);
  const aliases = db
    .query<{ alias: string }, [number]>('SELECT alias FROM people_aliases WHERE profile_id = ? ORDER BY alias')
    .all(id)
    .map((alias) => alias.alias);
  return { ...row, aliases };
}

/** The profile whose name or alias is `name` (ignoring case in any script), or null. */
export function findProfile(db: Database, name: string): Profile | null {
  const key = nameKey(name);
  const row =
    db.query<{ id: number }, [string]>('SELECT id FROM people_profiles WHERE name = ?').get(name) ??
    db.query<{ id: number }, [string]>('SELECT profile_id AS id FROM people_aliases WHERE alias = ?').get(name) ??
    db
      .query<{ id: number; name: string }, []>(
        'SELECT id, name FROM people_profiles UNION ALL SELECT profile_id AS id, alias AS name FROM people_aliases',
      )
      .all()
      .find((each) => nameKey(each.name) === key);
  return row ? profileById(db, row.id) : null;
}

/** Like findProfile, but a missing profile is E_PROFILE_NOT_FOUND naming the profiles that exist. */
export function resolveProfile(db: Database, name: string): Profile {
  const found = findProfile(db, name);
  if (found) return found;
  const known = db
    .query<{ name: string }, []>('SELECT name FROM people_profiles ORDER BY name LIMIT 20')
    .all()
    .map((row) => row.name);
  throw new GoondanError(
    'E_PROFILE_NOT_FOUND',
    `No profile is called '${name}'${known.length > 0 ? ` (profiles: ${known.join(', ')})` : ' (there are no profiles yet)'}.`,
    {
      suggestion: `Use an existing name or alias, or create the profile first with profile__create { name: '${name}' }.`,
    },
  );
}

/** A name or alias must not be any profile's name or alias yet (they share one namespace). */
function ensureNameFree(db: Database, name: string, field: string): void {
  const owner = findProfile(db, name);
  if (owner) {
    throw new GoondanError(
      'E_PROFILE_NAME_TAKEN',
      `'${name}' (${field}) is already a name or alias of profile '${owner.name}'.`,
      {
        suggestion: `Pick another ${field}, or use profile__merge to join the two people if they are the same person.`,
      },
    );
  }
}

export function createProfile(db: Database, input: { name: string; aliases: string[]; description: string }): Profile {
  return db
    .transaction(() => {
      const names = [input.name, ...input.aliases];
      const lowered = names.map(nameKey);
      if (new Set(lowered).size !== names.length) {
        throw new GoondanError('E_TOOL_INVALID_ARGS', 'The name and aliases repeat a name.', {
          suggestion: 'List each alias once, and not the name itself.',
        });
      }
      for (const name of names) ensureNameFree(db, name, name === input.name ? 'name' : 'alias');
      const { id } = db
        .query<{ id: number }, [string, string, string]>(
          'INSERT INTO people_profiles (name, description, created_at) VALUES (?, ?, ?) RETURNING id',
        )
        .get(input.name, input.description, new Date().toISOString()) as { id: number };
      for (const alias of input.aliases)
        db.query('INSERT INTO people_aliases (alias, profile_id) VALUES (?, ?)').run(alias, id);
      return profileById(db, id);
    })
    .immediate();
}

export function addAlias(db: Database, name: string, alias: string): Profile {
  return db
    .transaction(() => {
      const profile = resolveProfile(db, name);
      ensureNameFree(db, alias, 'alias');
      db.query('INSERT INTO people_aliases (alias, profile_id) VALUES (?, ?)').run(alias, profile.id);
      return profileById(db, profile.id);
    })
    .immediate();
}

/** Renames a profile; the old name stays as an alias, so people who still use it are recognised. */
export function renameProfile(db: Database, from: string, to: string): Profile {
  return db
    .transaction(() => {
      const profile = resolveProfile(db, from);
      const owner = findProfile(db, to);
      if (owner && owner.id !== profile.id) ensureNameFree(db, to, 'name');
      for (const alias of profile.aliases)
        if (nameKey(alias) === nameKey(to)) db.query('DELETE FROM people_aliases WHERE alias = ?').run(alias);
      db.query('UPDATE people_profiles SET name = ? WHERE id = ?').run(to, profile.id);
      if (nameKey(profile.name) !== nameKey(to))
        db.query('INSERT INTO people_aliases (alias, profile_id) VALUES (?, ?)').run(profile.name, profile.id);
      return profileById(db, profile.id);
    })
    .immediate();
}

/** Who speaks to the agent instance `speaker` ("agent/instance"), or null when nobody was set. */
export function currentProfile(db: Database, speaker: string): Profile | null {
  const row = db
    .query<{ profile_id: number }, [string]>('SELECT profile_id FROM people_current WHERE speaker = ?')
    .get(speaker);
  return row ? profileById(db, row.profile_id) : null;
}

export function setCurrentProfile(db: Database, speaker: string, name: string): Profile {
  const profile = resolveProfile(db, name);
  db.query(
    'INSERT INTO people_current (speaker, profile_id) VALUES (?, ?) ON CONFLICT (speaker) DO UPDATE SET profile_id = excluded.profile_id',
  ).run(speaker, profile.id);
  return profile;
}

export function profileView(profile: Profile) {
  return { name: profile.name, aliases: profile.aliases, description: profile.description };
}
