/** The console's one HTML page; the script draws every view into <main>. */
export const consolePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Goondan console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/app.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <span class="brand">Goondan console</span>
  <nav aria-label="Views">
    <a href="#/instances">Instances</a>
    <a href="#/traces">Traces</a>
    <a href="#/audit">Audit log</a>
    <a href="#/schedules">Schedules</a>
  </nav>
  <span id="mode" class="muted"></span>
</header>
<div id="status" role="status" aria-live="polite"></div>
<main id="main" tabindex="-1"><p>Loading…</p></main>
<script type="module" src="/console/app.js"></script>
</body>
</html>
`;

/**
 * Where the page may load from and talk to: itself only (no CDN, no inline script), in no frame of another page
 * (clickjacking an Approve button), with DOM sinks that take HTML (innerHTML, …) refused (Trusted Types: the
 * script builds every node with createElement and text nodes, so text stored by a model or a tool never becomes
 * markup).
 */
export const consoleSecurityHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Headers of the script, the stylesheet and every answer of /console/api: read as what they say they are, by this
 * origin only (a page of another site cannot pull them in with <script> or <img>, which send no Origin), and the
 * data never kept in the browser's cache.
 */
export const consoleAssetHeaders = {
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
};
export const consoleDataHeaders = { ...consoleAssetHeaders, 'cache-control': 'no-store' };

/** A docs page (Markdown) shown as preformatted text, escaped. */
export function errorDocPage(code: string, markdown: string, link?: string): string {
  const more = link ? `<p>See <a href="${escapeHtml(link)}">${escapeHtml(link)}</a>.</p>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(code)}</title>
<link rel="stylesheet" href="/console/app.css"></head><body><main id="main"><p><a href="/console">← Console</a></p>
<pre class="doc">${escapeHtml(markdown)}</pre>${more}</main></body></html>`;
}

/** Text made safe for an HTML element or a quoted attribute (the code in the URL is the requester's text). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
