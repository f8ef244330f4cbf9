/**
 * The changed paths a changeset may not change: anything outside the bundle directory, anything under `.goondan/`
 * (runtime state), and bundle-relative paths that match none of the allowed globs.
 */
export function changedPolicyViolations(options: {
  paths: readonly string[];
  prefix: string;
  allowed: readonly string[];
}): string[] {
  const globs = options.allowed.map((pattern) => new Bun.Glob(pattern));
  const refused: string[] = [];
  for (const path of options.paths) {
    if (!path.startsWith(options.prefix)) {
      refused.push(path);
      continue;
    }
    const inBundle = path.slice(options.prefix.length);
    if (inBundle === '.goondan' || inBundle.startsWith('.goondan/') || !globs.some((glob) => glob.match(inBundle)))
      refused.push(inBundle);
  }
  return refused;
}
