import type { Database } from 'bun:sqlite';
import type { ToolContext } from '@goondan/core';
import { memorySchema } from '../memory/memory-schema.ts';
import { assistantDatabase, assistantDatabaseAt } from '../store/assistant-database.ts';
import { peopleSchema } from './people-schema.ts';

/** The assistant database with the people and memory tables (a merge moves personal memory, so both). */
export function peopleDatabase(ctx: Pick<ToolContext, 'workdir' | 'config'>): Database {
  assistantDatabase(ctx, peopleSchema);
  return assistantDatabase(ctx, memorySchema);
}

/** Same as peopleDatabase, by file path (tests, benchmarks). */
export function peopleDatabaseAt(path: string): Database {
  assistantDatabaseAt(path, peopleSchema);
  return assistantDatabaseAt(path, memorySchema);
}

/** The key of "who speaks now" for an agent instance. */
export function speakerOf(ctx: { agentName: string; instanceKey: string }): string {
  return `${ctx.agentName}/${ctx.instanceKey}`;
}
