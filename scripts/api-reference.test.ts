import { expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { apiPage, renderApiReference } from './api-reference.ts';

/** The exports docs/embedding.md promises to keep stable, from its table between the stable-api markers. */
async function stableExports(): Promise<string[]> {
  const guide = await readFile(join(import.meta.dir, '..', 'docs', 'embedding.md'), 'utf8');
  const table = guide.slice(guide.indexOf('<!-- stable-api:start -->'), guide.indexOf('<!-- stable-api:end -->'));
  return [...table.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1]!);
}

test('the API reference documents every stable export with its signature, from the code', async () => {
  const stable = await stableExports();
  expect(stable).toContain('openAgentInstance');
  expect(stable.length).toBeGreaterThan(10);
  const rendered = renderApiReference();
  const committed = await readFile(apiPage, 'utf8');
  for (const name of stable) {
    expect(rendered).toMatch(new RegExp(`^### \`${name}\` \\(`, 'm'));
    expect(committed).toMatch(new RegExp(`^### \`${name}\` \\(`, 'm'));
  }
  // Signatures and members come from the declarations, not from hand-written text.
  expect(rendered).toContain('function openAgentInstance(options: OpenAgentInstanceOptions) => Promise<AgentInstance>');
  expect(rendered).toContain('- `answerApproval(id: string, answer: ApprovalAnswer) => ApprovalRecord`');
  expect(rendered).toContain('- `onApprovalRequested?(record: ApprovalRecord) => void`');
  expect(rendered).not.toContain('__index');
}, 180_000);
