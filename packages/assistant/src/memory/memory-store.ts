import type { Database } from 'bun:sqlite';
import { GoondanError } from '@goondan/core/errors';
import { nameKey } from '../names/display-name.ts';
import { indexText, matchExpression } from './search-terms.ts';

/** The longest memory entry, in characters: a memory is a fact to recall, not a document. */
export const MEMORY_MAX_CHARS = 2000;

export type MemoryScope = 'workspace' | 'personal';

/** Whose memories a call reads or writes: the workspace's, and the current person's (null when nobody is set). */
export interface MemoryOwner {
  scope: MemoryScope;
  /** The profile id for personal memory; null for workspace memory. */
  owner: number | null;
  /** For workspace memory: the workspace's id, null (or absent) for the personal space. */
  workspace?: string | null;
}

export interface MemoryEntry {
  id: number;
  scope: MemoryScope;
  content: string;
  updatedAt: string;
}

type Row = { id: number; scope: MemoryScope; content: string; updated_at: string };
/** A row with its `content_key`: the content as nameKey() has it (NFC, lowercased in every script). */
type KeyedRow = Row & { content_key: string };
const toEntry = (row: Row): MemoryEntry => ({
  id: row.id,
  scope: row.scope,
  content: row.content,
  updatedAt: row.updated_at,
});

type MemoryTextField = 'content' | 'old_content' | 'new_content' | 'query';

/** What to give instead of empty or over-long text: search words, the memory to change, or the fact to save. */
function textAdvice(field: MemoryTextField): { empty: string; long: string } {
  if (field === 'query')
    return {
      empty: "Give 'query' a few words the memory contains.",
      long: 'Search with a few words the memory contains, not a long text.',
    };
  if (field === 'old_content')
    return {
      empty: "Give 'old_content' the memory's text, or a part only it has (memory__search finds it).",
      long: "Give 'old_content' a part of the memory only it has, not a long text.",
    };
  return {
    empty: `Give '${field}' the fact to remember as a short sentence.`,
    long: 'Save the fact in a few short memories, one fact each, instead of one long text.',
  };
}

/** Trimmed text of a memory (or of a query for one), or a coded error for empty or over-long text. */
export function checkedMemoryText(text: unknown, field: MemoryTextField): string {
  const value = typeof text === 'string' ? text.trim() : '';
  const advice = textAdvice(field);
  if (value === '') {
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${field}' is empty.`, { suggestion: advice.empty });
  }
  if (value.length > MEMORY_MAX_CHARS) {
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `'${field}' has ${value.length} characters; at most ${MEMORY_MAX_CHARS}.`,
      { suggestion: advice.long },
    );
  }
  return value;
}

function ownerClause(owner: MemoryOwner): { sql: string; args: (string | number | null)[] } {
  return owner.owner === null
    ? { sql: "scope = 'workspace' AND workspace IS ?", args: [owner.workspace ?? null] }
    : { sql: "scope = 'personal' AND owner = ?", args: [owner.owner] };
}

/** Saves one memory and indexes it (one transaction). */
export function saveMemory(db: Database, owner: MemoryOwner, content: string): MemoryEntry {
  const now = new Date().toISOString();
  return db
    .transaction(() => {
      const row = db
        .query<Row, [string, number | null, string | null, string, string, string, string]>(
          'INSERT INTO memory_entries (scope, owner, workspace, content, content_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id, scope, content, updated_at',
        )
        .get(
          owner.scope,
          owner.owner,
          owner.owner === null ? (owner.workspace ?? null) : null,
          content,
          nameKey(content),
          now,
          now,
        ) as Row;
      db.query('INSERT INTO memory_search (rowid, terms) VALUES (?, ?)').run(row.id, indexText(content));
      return toEntry(row);
    })
    .immediate();
}

/**
 * Replaces the memory matching `oldContent` in one scope: an entry equal to it (ignoring case in every script, Unicode
 * normalisation and surrounding space), else the one entry containing it. None, or several containing it, is a coded
 * error naming candidates. Only the entries containing it are read (by their `content_key`, see memory-schema.ts).
 */
export function updateMemory(db: Database, owner: MemoryOwner, oldContent: string, newContent: string) {
  const where = ownerClause(owner);
  const key = nameKey(oldContent);
  return db
    .transaction(() => {
      const rows = db
        .query<KeyedRow, (string | number | null)[]>(
          `SELECT id, scope, content, updated_at, content_key FROM memory_entries
           WHERE ${where.sql} AND instr(content_key, ?) > 0 ORDER BY id`,
        )
        .all(...where.args, key);
      const exact = rows.filter((row) => row.content_key === key);
      const matches = exact.length > 0 ? exact : rows;
      if (matches.length === 0) {
        throw new GoondanError('E_MEMORY_NOT_FOUND', `No ${owner.scope} memory contains '${oldContent}'.`, {
          suggestion: 'Find the memory with memory__search and pass its text (or a part only it has) as old_content.',
        });
      }
      if (matches.length > 1) {
        const shown = matches.slice(0, 5).map((row) => `'${row.content}'`);
        throw new GoondanError(
          'E_MEMORY_AMBIGUOUS',
          `${matches.length} ${owner.scope} memories contain '${oldContent}': ${shown.join(', ')}${matches.length > 5 ? ', …' : ''}.`,
          { suggestion: 'Pass the full text of the one memory to change as old_content.' },
        );
      }
      const [target] = matches as [KeyedRow];
      const now = new Date().toISOString();
      db.query('UPDATE memory_entries SET content = ?, content_key = ?, updated_at = ? WHERE id = ?').run(
        newContent,
        nameKey(newContent),
        now,
        target.id,
      );
      db.query('UPDATE memory_search SET terms = ? WHERE rowid = ?').run(indexText(newContent), target.id);
      return {
        before: target.content,
        after: toEntry({ id: target.id, scope: target.scope, content: newContent, updated_at: now }),
      };
    })
    .immediate();
}

/**
 * Memories of the workspace and of `personalOwner` (when set) matching `query`, best first (bm25). `all` needs
 * every query term (prefixes); `any` needs one and ranks by how many and how rare.
 */
export function searchMemory(
  db: Database,
  query: string,
  options: {
    personalOwner: number | null;
    /** The workspace whose workspace memories are searched; null or absent: the personal space. */
    workspace?: string | null;
    scope?: MemoryScope;
    limit?: number;
    mode?: 'all' | 'any';
  },
): MemoryEntry[] {
  const match = matchExpression(query, options.mode === 'any' ? 'OR' : 'AND');
  if (match === null) return [];
  const scopes: string[] = [];
  const args: (string | number | null)[] = [match];
  if (options.scope !== 'personal') {
    scopes.push("(e.scope = 'workspace' AND e.workspace IS ?)");
    args.push(options.workspace ?? null);
  }
  if (options.scope !== 'workspace' && options.personalOwner !== null) {
    scopes.push("(e.scope = 'personal' AND e.owner = ?)");
    args.push(options.personalOwner);
  }
  if (scopes.length === 0) return [];
  args.push(options.limit ?? 10);
  return db
    .query<Row, (string | number | null)[]>(
      `SELECT e.id, e.scope, e.content, e.updated_at FROM memory_search s JOIN memory_entries e ON e.id = s.rowid
       WHERE memory_search MATCH ? AND (${scopes.join(' OR ')}) ORDER BY bm25(memory_search), e.id LIMIT ?`,
    )
    .all(...args)
    .map(toEntry);
}
