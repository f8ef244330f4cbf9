function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      current[j] = value;
      if (value < rowBest) rowBest = value;
    }
    if (rowBest > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The names an unknown name most likely meant, best first: names containing it (or contained in it) first, then
 * by edit distance (at most a third of its length, at least 2). Empty when nothing is close.
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
      const distance = editDistance(needle, candidate, limit);
      if (distance > limit) continue;
      score = distance;
    }
    scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, count).map((entry) => entry.name);
}
