import { afterEach, expect, test } from 'bun:test';
import { absoluteDocsLinks, asksForHelp, commandHelpText, errorPageLink } from './docs-link.ts';

const saved = { docs: process.env.GOONDAN_DOCS_URL, help: process.env.GOONDAN_HELP_BASE_URL };
afterEach(() => {
  if (saved.docs === undefined) delete process.env.GOONDAN_DOCS_URL;
  else process.env.GOONDAN_DOCS_URL = saved.docs;
  if (saved.help === undefined) delete process.env.GOONDAN_HELP_BASE_URL;
  else process.env.GOONDAN_HELP_BASE_URL = saved.help;
});

test('help links are absolute: the repository docs by default, GOONDAN_DOCS_URL or GOONDAN_HELP_BASE_URL when set', () => {
  delete process.env.GOONDAN_DOCS_URL;
  delete process.env.GOONDAN_HELP_BASE_URL;
  expect(errorPageLink('E_CLI_USAGE')).toBe('https://github.com/goondan/goondan/blob/main/docs/errors/E_CLI_USAGE.md');
  expect(commandHelpText('tools', 'Usage: gdn tools')).toBe(
    'Usage: gdn tools\n\nDocs: https://github.com/goondan/goondan/blob/main/docs/cli.md#gdn-tools-list',
  );
  process.env.GOONDAN_DOCS_URL = 'https://docs.example.test/v1';
  expect(errorPageLink('E_CLI_USAGE')).toBe('https://docs.example.test/v1/errors/E_CLI_USAGE.md');
  expect(commandHelpText('run', '')).toEndWith('Docs: https://docs.example.test/v1/cli.md#gdn-run');
  process.env.GOONDAN_HELP_BASE_URL = 'https://errors.example.test';
  expect(errorPageLink('E_TOOL')).toBe('https://errors.example.test/E_TOOL.md');
  expect(asksForHelp(['list', '-h'])).toBe(true);
  expect(asksForHelp(['call', 'x', '--', '--help'])).toBe(false);
});

test('a help text mentioning pages under docs/ links them absolutely; other paths are left alone', () => {
  process.env.GOONDAN_DOCS_URL = 'https://docs.example.test/v1/';
  expect(absoluteDocsLinks('Changesets (docs/changesets.md); see docs/security.md#secrets-in-the-environment.')).toBe(
    'Changesets (https://docs.example.test/v1/changesets.md); see https://docs.example.test/v1/security.md#secrets-in-the-environment.',
  );
  expect(absoluteDocsLinks('writes my-docs/notes.md and ./docs/x.md and https://x.test/docs/y.md')).toBe(
    'writes my-docs/notes.md and ./docs/x.md and https://x.test/docs/y.md',
  );
  expect(commandHelpText('changes', 'Bundle changesets (docs/changesets.md).')).toBe(
    'Bundle changesets (https://docs.example.test/v1/changesets.md).\n\nDocs: https://docs.example.test/v1/cli.md#gdn-changes',
  );
});
