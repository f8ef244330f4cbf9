import { checkTimeZone } from '../when/zoned-time.ts';

const known = new Map<string, string | null>();

/**
 * The IANA zone a TZID names, or null: the name itself, else its tail after a vendor prefix
 * (`/mozilla.org/20050126_1/Asia/Seoul`, `/citadel.org/…/Europe/Paris` → the zone).
 */
export function ianaZoneOf(tzid: string): string | null {
  if (known.has(tzid)) return known.get(tzid) ?? null;
  const parts = tzid.split('/').filter((part) => part !== '');
  let found: string | null = null;
  for (let from = 0; from < parts.length && found === null; from++) {
    const candidate = parts.slice(from).join('/');
    if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(candidate)) continue;
    if (!candidate.includes('/') && candidate !== 'UTC' && candidate !== 'GMT') continue;
    try {
      found = checkTimeZone(candidate);
    } catch {
      found = null;
    }
  }
  known.set(tzid, found);
  return found;
}
