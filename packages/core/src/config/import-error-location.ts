import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/** Where in a module an import failed: absolute file, 1-based line and column. */
export interface ImportErrorLocation {
  file: string;
  line: number;
  column: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Bun's BuildMessage (a syntax error) carries `position: { file, line, column }`, both 1-based. */
function fromPosition(thrown: Record<string, unknown>): ImportErrorLocation | null {
  const position = thrown.position;
  if (!isObject(position)) return null;
  const { file, line, column } = position;
  if (typeof file !== 'string' || typeof line !== 'number' || line < 1) return null;
  return { file, line, column: typeof column === 'number' && column >= 1 ? column : 1 };
}

/** Bun's ResolveMessage (an import that names nothing) has no position: find the specifier in the importer. */
function fromResolve(thrown: Record<string, unknown>): ImportErrorLocation | null {
  const { referrer, specifier } = thrown;
  if (typeof referrer !== 'string' || typeof specifier !== 'string' || !isAbsolute(referrer)) return null;
  let lines: string[];
  try {
    lines = readFileSync(referrer, 'utf8').split(/\r?\n/);
  } catch {
    return null;
  }
  for (const [index, text] of lines.entries()) {
    for (const quote of ["'", '"', '`']) {
      const at = text.indexOf(`${quote}${specifier}${quote}`);
      if (at >= 0) return { file: referrer, line: index + 1, column: at + 1 };
    }
  }
  return { file: referrer, line: 1, column: 1 };
}

/** An error thrown while the module ran its top level: the first stack frame inside `insideDir`. */
function fromStack(thrown: Record<string, unknown>, insideDir: string): ImportErrorLocation | null {
  const stack = thrown.stack;
  if (typeof stack !== 'string') return null;
  for (const match of stack.matchAll(/\(?((?:file:\/\/)?\/[^\s():]+):(\d+):(\d+)\)?$/gm)) {
    const file = match[1]!.replace(/^file:\/\//, '');
    if (file.startsWith(insideDir)) return { file, line: Number(match[2]), column: Number(match[3]) };
  }
  return null;
}

/**
 * Where importing a module failed, from what Bun threw: a syntax error's position, the import line of a module
 * that could not be resolved, or the first stack frame inside `insideDir` (the bundle) for an error thrown at the
 * module's top level. Null when the error says nothing about a place.
 *
 * @example
 * importErrorLocation(thrown, bundleDir); // { file: '/bundle/tools/calc.ts', line: 3, column: 22 }
 */
export function importErrorLocation(thrown: unknown, insideDir: string): ImportErrorLocation | null {
  if (!isObject(thrown)) return null;
  const first = Array.isArray(thrown.errors) && isObject(thrown.errors[0]) ? thrown.errors[0] : thrown;
  return fromPosition(first) ?? fromResolve(first) ?? fromStack(first, insideDir);
}
