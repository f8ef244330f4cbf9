type Levenshtein = typeof import('fastest-levenshtein');
let levenshtein: Levenshtein | undefined;

/**
 * The names an unknown name most likely meant, best first: names containing it (or contained in it) first, then
 * by edit distance (at most a third of its length, at least 2), ignoring case. Empty when nothing is close. The one
 * "did you mean" helper of the codebase: bundle checks, tool exposure and the command line all use it.
 * @example closestNames('weather_get', ['weather__get', 'bash__exec']) // ['weather__get']
 */
export function closestNames(input: string, candidates: Iterable<string>, count = 3): string[] {
  const needle = input.toLowerCase();
  if (needle.length === 0 || needle.length > 100) return [];
  const limit = Math.max(2, Math.floor(needle.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const candidate = name.toLowerCase();
    let score: number;
    if (candidate.includes(needle) || (candidate.length >= 3 && needle.includes(candidate))) {
      score = Math.abs(candidate.length - needle.length) / 1000;
    } else {
      if (Math.abs(candidate.length - needle.length) > limit) continue;
      // Required at the first suggestion, not imported at the top: every start loads this file, few suggest.
      levenshtein ??= require('fastest-levenshtein') as Levenshtein;
      score = levenshtein.distance(needle, candidate);
      if (score > limit) continue;
    }
    scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, count).map((entry) => entry.name);
}

/** The one name a typo most likely meant (`entyr` → `entry`), or undefined when none is close. */
export function closestName(input: string, candidates: Iterable<string>): string | undefined {
  return closestNames(input, candidates, 1)[0];
}
