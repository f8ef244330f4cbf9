import cliPackage from '../package.json' with { type: 'json' };

/**
 * Where the documentation lives, as an absolute URL ending in `/`: GOONDAN_DOCS_URL when set (a hosted copy, a
 * fork, a local `file://` checkout), otherwise the `docs/` folder of the repository named in this package's
 * package.json, on its main branch. Help texts and error lines link there, so a link works wherever gdn is installed.
 */
export function docsBaseUrl(): string {
  const configured = process.env.GOONDAN_DOCS_URL?.trim();
  if (configured) return configured.endsWith('/') ? configured : `${configured}/`;
  const repository = cliPackage.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  return `${repository}/blob/main/docs/`;
}

/** An absolute link to a page of the docs, e.g. `docsLink('cli.md#gdn-run')`. */
export function docsLink(page: string): string {
  return `${docsBaseUrl()}${page}`;
}

/**
 * The page of an error code for a person reading the terminal: GOONDAN_HELP_BASE_URL when set (it also moves the
 * `helpUrl` of results, see docs/errors), otherwise the error pages under the docs base.
 */
export function errorPageLink(code: string): string {
  const base = process.env.GOONDAN_HELP_BASE_URL;
  if (base) return `${base.endsWith('/') ? base : `${base}/`}${code}.md`;
  return docsLink(`errors/${code}.md`);
}

/** The section of docs/cli.md about a command (its heading's anchor). */
export function commandDocsLink(command: string): string {
  const heading = ({ tools: 'gdn-tools-list', mcp: 'gdn-mcp-serve' } as Record<string, string>)[command];
  return docsLink(`cli.md#${heading ?? `gdn-${command}`}`);
}

/** Text with every `docs/PAGE.md[#anchor]` it mentions turned into the absolute link of that page. */
export function absoluteDocsLinks(text: string): string {
  return text.replace(/(?<![\w/.:-])docs\/([\w./-]+\.md(?:#[\w-]+)?)/g, (_, page: string) => docsLink(page));
}

/**
 * A command's help text, its mentions of pages under docs/ made absolute, with the link to its section of
 * docs/cli.md at the end.
 */
export function commandHelpText(command: string, help: string): string {
  return `${absoluteDocsLinks(help)}\n\nDocs: ${commandDocsLink(command)}`;
}

/** `--help` or `-h` among a command's flags (not after `--`, where everything is an argument). */
export function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}
