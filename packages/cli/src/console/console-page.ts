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

/** Where the page may load from and talk to: itself only (no CDN, no inline script). */
export const consoleSecurityHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

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
