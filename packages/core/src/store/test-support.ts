import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../types.ts';

/** Shared by the store's tests: a fresh directory under the OS temp dir and a way to remove them all. */
export function createTempDirs(): { make(): string; cleanup(): void } {
  const made: string[] = [];
  return {
    make() {
      const dir = mkdtempSync(join(tmpdir(), 'goondan-store-'));
      made.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A user message with a given id and text. */
export function textMessage(id: string, text: string, createdAt = new Date(1_700_000_000_000)): Message {
  return {
    id,
    data: { role: 'user', content: text },
    metadata: {},
    createdAt,
    source: { type: 'user' },
  };
}
