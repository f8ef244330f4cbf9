import type { Database } from 'bun:sqlite';
import {
  GoondanError,
  type InstanceDatabaseFile,
  listInstanceDatabases,
  openInstanceDatabase,
  toToolError,
} from '@goondan/core';

/** An instance database the console could not read, with the coded reason (shown, never thrown). */
export interface InstanceProblem {
  agent: string;
  instanceKey: string;
  code: string;
  message: string;
  suggestion?: string;
}

/**
 * Runs `read` on every instance database of the bundle, each opened and closed in turn. A database that cannot be
 * opened or read (corrupt, from a newer goondan) becomes a problem in the answer instead of failing the request.
 */
export function readInstances<T>(
  rootDir: string,
  read: (db: Database, file: InstanceDatabaseFile) => T,
  /** How long a statement waits for another connection's lock (default 1000 ms: a view is not held up long). */
  options: { busyTimeoutMs?: number } = {},
): { results: { file: InstanceDatabaseFile; value: T }[]; problems: InstanceProblem[] } {
  const results: { file: InstanceDatabaseFile; value: T }[] = [];
  const problems: InstanceProblem[] = [];
  for (const file of listInstanceDatabases({ rootDir })) {
    let db: Database | undefined;
    try {
      db = openInstanceDatabase(file.databaseFile, { busyTimeoutMs: options.busyTimeoutMs ?? 1000, forReading: true });
      results.push({ file, value: read(db, file) });
    } catch (thrown) {
      const error = toToolError(thrown, { fallbackCode: 'E_STORE_CORRUPT' });
      problems.push({
        agent: file.agentName,
        instanceKey: file.instanceKey,
        code: error.code ?? 'E_STORE_CORRUPT',
        message: thrown instanceof GoondanError ? thrown.message : error.message,
        ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      });
    } finally {
      db?.close();
    }
  }
  return { results, problems };
}
