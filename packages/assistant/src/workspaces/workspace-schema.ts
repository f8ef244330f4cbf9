import type { AssistantSchema } from '../store/assistant-database.ts';

/**
 * The workspace concern's tables: workspaces, their members (people profiles), the one current invite per
 * workspace (only a hash of its code is kept), and per agent instance ("agent/instance") the workspace it is in.
 * No row in workspace_current means the default, personal space.
 */
export const workspaceSchema: AssistantSchema = {
  name: 'workspace',
  migrations: [
    {
      version: 1,
      up: (db) => {
        db.run(`CREATE TABLE workspace_spaces (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          created_by INTEGER NOT NULL,
          created_at TEXT NOT NULL
        )`);
        db.run(`CREATE TABLE workspace_members (
          workspace_id TEXT NOT NULL REFERENCES workspace_spaces (id) ON DELETE CASCADE,
          profile_id INTEGER NOT NULL,
          role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
          joined_at TEXT NOT NULL,
          PRIMARY KEY (workspace_id, profile_id)
        )`);
        db.run('CREATE INDEX workspace_members_profile ON workspace_members (profile_id)');
        db.run(`CREATE TABLE workspace_invites (
          code_hash TEXT PRIMARY KEY,
          workspace_id TEXT NOT NULL UNIQUE REFERENCES workspace_spaces (id) ON DELETE CASCADE,
          expires_at INTEGER NOT NULL,
          single_use INTEGER NOT NULL,
          used_by INTEGER,
          used_at INTEGER,
          created_by INTEGER NOT NULL,
          created_at INTEGER NOT NULL
        )`);
        db.run(`CREATE TABLE workspace_current (
          speaker TEXT PRIMARY KEY,
          workspace_id TEXT NOT NULL REFERENCES workspace_spaces (id) ON DELETE CASCADE
        )`);
      },
    },
  ],
};
