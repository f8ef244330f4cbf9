import type { AssistantSchema } from '../store/assistant-database.ts';

/**
 * The people concern's tables: profiles (a unique name), their aliases (names and aliases share one namespace,
 * ignoring case) and, per agent instance ("agent/instance"), who is speaking now.
 */
export const peopleSchema: AssistantSchema = {
  name: 'people',
  migrations: [
    {
      version: 1,
      up: (db) => {
        db.run(`CREATE TABLE people_profiles (
          id INTEGER PRIMARY KEY,
          name TEXT NOT NULL UNIQUE COLLATE NOCASE,
          description TEXT NOT NULL DEFAULT '',
          created_at TEXT NOT NULL
        )`);
        db.run(`CREATE TABLE people_aliases (
          alias TEXT PRIMARY KEY COLLATE NOCASE,
          profile_id INTEGER NOT NULL REFERENCES people_profiles (id) ON DELETE CASCADE
        )`);
        db.run(`CREATE TABLE people_current (
          speaker TEXT PRIMARY KEY,
          profile_id INTEGER NOT NULL REFERENCES people_profiles (id) ON DELETE CASCADE
        )`);
      },
    },
  ],
};
