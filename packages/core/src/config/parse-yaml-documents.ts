import type { CST, Document, LineCounter } from 'yaml';
import type { ErrorCode } from '../errors/error-codes.ts';
import { createProblem } from './create-problem.ts';
import type { YamlDocument } from './locate-field.ts';
import type { BundleProblem } from './resources.ts';
import { type UnreadableDocument, unreadableDocument } from './unreadable-document.ts';
import { yamlPackage } from './yaml-package.ts';

/** Bounds that protect the loader from hostile YAML (DESIGN.md §5). */
export const yamlLimits = {
  maxBytes: 1024 * 1024,
  /** Documents with content; empty ones (a stray `---`) are skipped and only bounded by `maxEmptyDocuments`. */
  maxDocuments: 100,
  maxEmptyDocuments: 1000,
  /** Nested mappings and sequences, counted from the document's top collection (1). */
  maxDepth: 64,
  /** Passed to yaml's toJS: bounds alias expansion ("billion laughs"). */
  maxAliasCount: 100,
} as const;

const maxExpandedCollections = 100_000;

/** Offset of the first collection nested deeper than the limit inside a CST token, if any. */
function tooDeepOffset(token: CST.Token): number | undefined {
  const stack: [CST.Token, number][] = [[token, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [current, depth] = entry;
    if (current.type === 'document') {
      if (current.value) stack.push([current.value, depth]);
    } else if (current.type === 'block-map' || current.type === 'block-seq' || current.type === 'flow-collection') {
      if (depth + 1 > yamlLimits.maxDepth) return current.offset;
      for (const item of current.items) {
        if (item.key) stack.push([item.key, depth + 1]);
        if (item.value) stack.push([item.value, depth + 1]);
      }
    }
  }
  return undefined;
}

/**
 * Aliases can deepen a value, nest it inside itself or share it many times over; check the data too, without
 * recursion. Returns why the value is over the limits, if it is.
 */
function valueOverLimits(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  let visited = 0;
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [current, depth] = entry;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > yamlLimits.maxDepth) return `YAML nesting (through aliases) is deeper than ${yamlLimits.maxDepth}`;
    if (++visited > maxExpandedCollections) return `Aliases expand to more than ${maxExpandedCollections} collections`;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return undefined;
}

type Composed = { ok: true; docs: Document.Parsed[] } | { ok: false; message: string; offset: number };

function isEmptyDocument(doc: Document.Parsed): boolean {
  const contents = doc.contents as { range?: [number, number, number]; value?: unknown } | null;
  if (doc.errors.length > 0) return false;
  return contents === null || (contents.value === null && contents.range?.[0] === contents.range?.[1]);
}

function compose(text: string, lineCounter: LineCounter): Composed {
  lineCounter.addNewLine(0);
  const { Composer, Lexer, Parser } = yamlPackage();
  const parser = new Parser(lineCounter.addNewLine);
  const composer = new Composer();
  const docs: Document.Parsed[] = [];
  let emptyDocuments = 0;
  let flowDepth = 0;
  const push = (doc: Document.Parsed): Composed | undefined => {
    if (isEmptyDocument(doc)) emptyDocuments++;
    else docs.push(doc);
    if (docs.length <= yamlLimits.maxDocuments && emptyDocuments <= yamlLimits.maxEmptyDocuments) return undefined;
    const message =
      docs.length > yamlLimits.maxDocuments
        ? `The file has more than ${yamlLimits.maxDocuments} YAML documents`
        : `The file has more than ${yamlLimits.maxEmptyDocuments} empty YAML documents`;
    return { ok: false, message, offset: doc.contents?.range[0] ?? doc.range[0] };
  };
  const tooDeep = (offset: number): Composed => ({
    ok: false,
    message: `YAML nesting is deeper than ${yamlLimits.maxDepth} levels`,
    offset,
  });
  const accept = (token: CST.Token): Composed | undefined => {
    const deepAt = tooDeepOffset(token);
    if (deepAt !== undefined) return tooDeep(deepAt);
    for (const doc of composer.next(token)) {
      const failed = push(doc);
      if (failed) return failed;
    }
    return undefined;
  };
  // Driving the lexer ourselves lets deep flow nesting (`[[[[…`) stop early, before the parser builds it.
  for (const lexeme of new Lexer().lex(text)) {
    if (lexeme === '[' || lexeme === '{') flowDepth++;
    else if (lexeme === ']' || lexeme === '}') flowDepth = Math.max(0, flowDepth - 1);
    if (flowDepth > yamlLimits.maxDepth) return tooDeep(parser.offset);
    for (const token of parser.next(lexeme)) {
      const failed = accept(token);
      if (failed) return failed;
    }
  }
  for (const token of parser.end()) {
    const failed = accept(token);
    if (failed) return failed;
  }
  for (const doc of composer.end()) {
    const failed = push(doc);
    if (failed) return failed;
  }
  return { ok: true, docs };
}

/** What a document with syntax errors still says (yaml reads past most errors), for its kind and name. */
function salvage(doc: Document.Parsed): UnreadableDocument {
  try {
    return unreadableDocument(doc.toJS({ maxAliasCount: yamlLimits.maxAliasCount }));
  } catch {
    return {};
  }
}

/**
 * Splits a bundle file into its YAML documents, as data with source positions. Syntax errors become E_YAML_PARSE
 * problems; anything over `yamlLimits` becomes one E_YAML_LIMIT problem and no documents. Empty documents are skipped.
 * `unreadable` has the kind and name still readable in each document that had syntax errors.
 */
export function parseYamlDocuments(options: { text: string; file: string; absoluteFile: string }): {
  documents: YamlDocument[];
  problems: BundleProblem[];
  unreadable: UnreadableDocument[];
} {
  const { text, file, absoluteFile } = options;
  const { LineCounter } = yamlPackage();
  const lineCounter = new LineCounter();
  const problem = (code: ErrorCode, message: string, offset: number): BundleProblem => {
    const position = lineCounter.linePos(offset);
    const location = { file, line: Math.max(1, position.line), column: Math.max(1, position.col) };
    return createProblem({ code, message, location });
  };
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > yamlLimits.maxBytes) {
    const message = `${file} is ${bytes} bytes; bundle files may be at most ${yamlLimits.maxBytes} bytes`;
    return { documents: [], problems: [problem('E_YAML_LIMIT', message, 0)], unreadable: [{}] };
  }
  const composed = compose(text, lineCounter);
  if (!composed.ok) {
    return { documents: [], problems: [problem('E_YAML_LIMIT', composed.message, composed.offset)], unreadable: [{}] };
  }

  const documents: YamlDocument[] = [];
  const problems: BundleProblem[] = [];
  const unreadable: UnreadableDocument[] = [];
  for (const doc of composed.docs) {
    if (doc.errors.length > 0) {
      for (const error of doc.errors) {
        // yaml points some indentation errors at the start of the line; the caret goes under its first character.
        const offset = error.pos[0] + (/^[ \t]*/.exec(text.slice(error.pos[0]))?.[0].length ?? 0);
        problems.push(problem('E_YAML_PARSE', error.message, offset));
      }
      unreadable.push(salvage(doc));
      continue;
    }
    const start = doc.contents?.range[0] ?? doc.range[0];
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: yamlLimits.maxAliasCount });
    } catch (thrown) {
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      const code = /alias count/i.test(message) ? 'E_YAML_LIMIT' : 'E_YAML_PARSE';
      const detail =
        code === 'E_YAML_LIMIT' ? `Too many aliases (limit ${yamlLimits.maxAliasCount}): ${message}` : message;
      problems.push(problem(code, detail, start));
      continue;
    }
    const overLimits = valueOverLimits(value);
    if (overLimits) {
      problems.push(problem('E_YAML_LIMIT', overLimits, start));
      continue;
    }
    documents.push({ file, absoluteFile, doc, lineCounter, value });
  }
  return { documents, problems, unreadable };
}
