import type { Database } from 'bun:sqlite';
import { InstanceStateStore } from './instance-state-store.ts';

const KEY = 'runtime:notices';

/**
 * Notes the runtime leaves for an agent instance's next turn, in the instance's own database (key
 * `runtime:notices` of `instance_state`): for example that a restart activated a new bundle revision
 * (docs/changesets.md#activation). Whoever restarts the instance adds them; the instance takes them all at the
 * start of its next turn and stores them in its conversation, before the turn's event, so the model sees each one
 * once and no turn starts for them.
 *
 * @example
 * new RuntimeNotices(db).add('The bundle changed: revision 9c1e2f0 is active.');
 * new RuntimeNotices(db).take(); // ['The bundle changed: …'], and none are left
 */
export class RuntimeNotices {
  private readonly state: InstanceStateStore;

  constructor(private readonly db: Database) {
    this.state = new InstanceStateStore(db);
  }

  /** Adds a notice; durable when it returns. */
  add(text: string): void {
    this.db.transaction(() => this.state.setState(KEY, [...this.pending(), text])).immediate();
  }

  /**
   * Every pending notice, oldest first; none are left afterwards. `store` (called only when there are some) runs
   * in the same transaction: if it throws, the notices stay pending.
   */
  take(store?: (notices: string[]) => void): string[] {
    return this.db
      .transaction(() => {
        const notices = this.pending();
        if (notices.length === 0) return notices;
        this.state.deleteState(KEY);
        store?.(notices);
        return notices;
      })
      .immediate();
  }

  private pending(): string[] {
    const value = this.state.getState(KEY);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  }
}
