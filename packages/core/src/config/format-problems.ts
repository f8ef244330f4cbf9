import type { BundleProblem } from './resources.ts';

const ansi = {
  reset: '\x1b[0m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
  red: '\x1b[31m',
  yellow: '\x1b[33m',
  cyan: '\x1b[36m',
} as const;

type Style = Exclude<keyof typeof ansi, 'reset'>;

const maxShownLine = 160;

/** A long line is cut to a window around the column, so a minified line does not flood the terminal. */
function excerpt(line: string, column: number): { text: string; caretAt: number } {
  const caretAt = Math.max(0, Math.min(column, line.length));
  if (line.length <= maxShownLine) return { text: line, caretAt };
  const start = Math.max(0, caretAt - maxShownLine / 2);
  const end = Math.min(line.length, start + maxShownLine);
  const prefix = start > 0 ? '...' : '';
  const suffix = end < line.length ? '...' : '';
  return { text: `${prefix}${line.slice(start, end)}${suffix}`, caretAt: prefix.length + caretAt - start };
}

/**
 * Problems as text for a terminal: `file:line:col  CODE  message`, the offending source line with a caret under
 * the column, then the suggestion and the help link. `readFile` gets each problem's `file` (relative to the bundle
 * root) and returns its text, or undefined when it cannot be read (the source line is then left out). Problems name
 * files the loader refused (a FIFO, a device, a huge file), so read with `readSourceText`, which refuses them too.
 * `helpLink` turns a code into the link shown (a front end's absolute link to the hosted page); without it the
 * problem's `helpUrl` is shown as it is.
 * @example console.error(formatProblems(problems, { color: true, readFile: (file) => readSourceText(join(root, file)) }))
 */
export function formatProblems(
  problems: readonly BundleProblem[],
  options: {
    color: boolean;
    readFile: (file: string) => string | undefined | null;
    helpLink?: (code: string) => string;
    /** Warnings (the bundle loads): `warning CODE`, in yellow. */
    warning?: boolean;
  },
): string {
  const paint = (text: string, style: Style) => (options.color ? `${ansi[style]}${text}${ansi.reset}` : text);
  const linesByFile = new Map<string, string[] | undefined>();
  const linesOf = (file: string): string[] | undefined => {
    if (!linesByFile.has(file)) {
      let text: string | undefined | null;
      try {
        text = options.readFile(file);
      } catch {
        text = undefined;
      }
      linesByFile.set(file, typeof text === 'string' ? text.split(/\r?\n/) : undefined);
    }
    return linesByFile.get(file);
  };

  return problems
    .map((problem) => {
      const out = [
        `${paint(`${problem.file}:${problem.line}:${problem.column}`, 'bold')}  ${options.warning ? paint(`warning ${problem.code}`, 'yellow') : paint(problem.code, 'red')}  ${problem.message}`,
      ];
      const source = linesOf(problem.file)?.[problem.line - 1];
      if (source !== undefined) {
        const { text, caretAt } = excerpt(source, problem.column - 1);
        const number = String(problem.line);
        // Copy tabs so the caret lines up however the terminal renders them.
        const indent = text.slice(0, caretAt).replace(/[^\t]/g, ' ');
        out.push(`  ${paint(`${number} |`, 'dim')} ${text}`);
        out.push(`  ${paint(`${' '.repeat(number.length)} |`, 'dim')} ${indent}${paint('^', 'red')}`);
      }
      out.push(`  ${paint('suggestion:', 'cyan')} ${problem.suggestion}`);
      out.push(`  ${paint('help:', 'cyan')} ${options.helpLink?.(problem.code) ?? problem.helpUrl}`);
      return out.join('\n');
    })
    .join('\n\n');
}
