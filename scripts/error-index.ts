/**
 * Writes docs/errors/README.md, the index of error codes, from the one table of them
 * (packages/core/src/errors/error-codes.ts): a section per group comment of the table, a row per code with its name,
 * in the table's order. Usage: bun scripts/error-index.ts (error-index.test.ts checks the page is up to date).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorCodes } from '../packages/core/src/errors/error-codes.ts';

const root = join(import.meta.dir, '..');
export const errorIndexPage = join(root, 'docs', 'errors', 'README.md');
const tableSource = join(root, 'packages', 'core', 'src', 'errors', 'error-codes.ts');

const intro = `# Error codes

Every error Goondan reports has a stable code from one table (\`packages/core/src/errors/error-codes.ts\`), a
name, a suggestion and a page here. In a ToolResult the code is \`error.code\` and the page is \`error.helpUrl\`; in
\`gdn validate\` output it is the second column and the \`help:\` line. This index is written from the table
(\`bun scripts/error-index.ts\`).
`;

/** A group comment as a heading: `docs/x.md` paths become links relative to this page. */
function heading(comment: string): string {
  return comment.replace(/docs\/([\w./-]+\.md(?:#[\w-]+)?)/g, (_, path: string) => `[${path}](../${path})`);
}

export function renderErrorIndex(): string {
  const sections: { title: string; codes: string[] }[] = [];
  for (const line of readFileSync(tableSource, 'utf8').split('\n')) {
    const group = /^ {2}\/\/ (.+)$/.exec(line);
    if (group) sections.push({ title: heading(group[1]!), codes: [] });
    const code = /^ {2}(E_[A-Z0-9_]+):/.exec(line);
    if (code && sections.length > 0) sections.at(-1)!.codes.push(code[1]!);
  }
  const names = errorCodes as Record<string, { name: string }>;
  const body = sections
    .filter((section) => section.codes.length > 0)
    .map(
      (section) =>
        `## ${section.title}\n\n| code | name |\n|---|---|\n${section.codes
          .map((code) => `| [${code}](${code}.md) | ${names[code]?.name ?? ''} |`)
          .join('\n')}\n`,
    );
  return [intro, ...body].join('\n');
}

if (import.meta.main) {
  writeFileSync(errorIndexPage, renderErrorIndex());
  console.log(`wrote ${errorIndexPage}`);
}
