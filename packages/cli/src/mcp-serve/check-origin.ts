/** Hosts of loopback origins: pages served from this machine (an inspector, a local web app) may call. */
const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether a request with this `Origin` header may reach the MCP endpoint. Browsers send Origin with every
 * cross-origin POST; a page of another site that made its name resolve to 127.0.0.1 (DNS rebinding) still carries
 * its own origin, so refusing foreign origins keeps web pages from calling the tools. Requests without Origin
 * (MCP clients that are programs, not pages) pass. Loopback origins on any port pass, and those given with
 * `--allow-origin` (exact `scheme://host[:port]`, or `*` for any).
 */
export function isAllowedOrigin(origin: string | null, allowed: readonly string[]): boolean {
  if (origin === null) return true;
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && loopbackHosts.has(url.hostname);
  } catch {
    return false; // `null` (a sandboxed page, a file) and anything unparsable
  }
}
