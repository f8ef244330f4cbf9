import type { Database } from 'bun:sqlite';
import type { ToolContext } from '@goondan/core';
import { peopleDatabase, peopleDatabaseAt } from '../people/people-database.ts';
import { assistantDatabase, assistantDatabaseAt } from '../store/assistant-database.ts';
import { workspaceSchema } from './workspace-schema.ts';

/** The assistant database with the people, memory and workspace tables (members are people). */
export function workspaceDatabase(ctx: Pick<ToolContext, 'workdir' | 'config'>): Database {
  peopleDatabase(ctx);
  return assistantDatabase(ctx, workspaceSchema);
}

/** Same as workspaceDatabase, by file path (tests). */
export function workspaceDatabaseAt(path: string): Database {
  peopleDatabaseAt(path);
  return assistantDatabaseAt(path, workspaceSchema);
}
