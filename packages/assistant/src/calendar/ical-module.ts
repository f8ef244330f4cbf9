/** ical.js, imported on first use: the CLI loads the pack beside every bundle and imports each Tool's entry. */
export type Ical = typeof import('ical.js').default;

let loaded: Promise<Ical> | undefined;

export function loadIcal(): Promise<Ical> {
  loaded ??= import('ical.js').then((module) => module.default);
  return loaded;
}
