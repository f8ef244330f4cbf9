import type { ToolContext } from '@goondan/core';
import { speakerOf } from '../people/people-database.ts';
import { currentProfile } from '../people/people-store.ts';
import { workspaceDatabase } from './workspace-database.ts';
import { currentWorkspace, type Workspace } from './workspace-store.ts';

/**
 * The workspace the calling agent instance is in (workspace__switch), or null for the personal space. Memory of
 * scope `workspace` and kanban boards belong to it.
 */
export function callerWorkspace(
  ctx: Pick<ToolContext, 'workdir' | 'config' | 'agentName' | 'instanceKey'>,
): Workspace | null {
  const db = workspaceDatabase(ctx);
  const speaker = speakerOf(ctx);
  return currentWorkspace(db, speaker, currentProfile(db, speaker));
}
