import type { AgentProcessInfo } from '@goondan/core';

/** What the console reads: a bundle's state directory, and (under gdn serve) its running agent processes. */
export interface ConsoleSource {
  /** `serve` under gdn serve, `bundle` under gdn trace --serve (no agents run). */
  mode: 'serve' | 'bundle';
  rootDir(): string;
  /** The agents of the bundle (or Swarm) being served. */
  agents(): string[];
  /** Running agent processes (gdn serve only). */
  processes?(): AgentProcessInfo[];
}
