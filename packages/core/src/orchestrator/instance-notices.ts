import { instancePaths } from '../agent/instance-paths.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { RuntimeNotices } from '../store/runtime-notices.ts';

/** Where the Orchestrator leaves notices for an instance's next turn (a restart activated a new revision). */
export interface NoticeBoard {
  /** Durable when it returns. Throws when the instance's database cannot be written. */
  add(agent: string, instanceKey: string, text: string): void;
}

/**
 * Notices in each instance's own database (RuntimeNotices), written just before its new process starts, so the
 * process that takes them is always the one on the new revision. Rare (once per restart): opened and closed each time.
 */
export function createInstanceNoticeBoard(options: { rootDir: string; stateDir?: string }): NoticeBoard {
  return {
    add(agent, instanceKey, text) {
      const { databaseFile } = instancePaths({ ...options, agentName: agent, instanceKey });
      const db = openInstanceDatabase(databaseFile);
      try {
        new RuntimeNotices(db).add(text);
      } finally {
        db.close();
      }
    },
  };
}
