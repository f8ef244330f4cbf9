/**
 * The `yaml` package, required at its first use rather than imported at the top: loading it costs ~40 ms of CPU,
 * and a start whose goondan.yaml files all come from the cache (library-file-cache.ts) parses no YAML.
 */
export function yamlPackage(): typeof import('yaml') {
  return require('yaml') as typeof import('yaml');
}
