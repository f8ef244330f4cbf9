import { knownPlatforms } from '../tools/tool-availability.ts';
import { problemAt } from './create-problem.ts';
import type { FieldPath, YamlDocument } from './locate-field.ts';
import type { BundleProblem } from './resources.ts';

/** A command is looked up on PATH by name: no directory, no spaces, no shell. */
const commandName = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
const envName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const configKey = /^[A-Za-z0-9_-]{1,64}$/;

/** Names people write for a platform, and the process.platform value they mean. */
const platformAliases: Record<string, string> = {
  macos: 'darwin',
  mac: 'darwin',
  osx: 'darwin',
  windows: 'win32',
  win: 'win32',
  win64: 'win32',
  gnu: 'linux',
  'gnu/linux': 'linux',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The values of a Tool's `spec.requires` and its exports' `requires` (docs/resources.md#requires): known platform
 * names, command names without a path, variable names, config keys; `a|b` alternatives with no empty part. Types and
 * unknown fields are the shape check's (E_RESOURCE_INVALID).
 */
export function checkToolRequires(document: YamlDocument): BundleProblem[] {
  const spec = (document.value as { spec?: unknown }).spec;
  if (!isPlainObject(spec)) return [];
  const problems: BundleProblem[] = [];
  const check = (requires: unknown, path: FieldPath) => {
    if (!isPlainObject(requires)) return;
    checkSet(document, requires, path, problems);
    if (Array.isArray(requires.anyOf)) {
      requires.anyOf.forEach((branch, index) => {
        if (isPlainObject(branch)) checkSet(document, branch, [...path, 'anyOf', index], problems);
      });
    }
  };
  check(spec.requires, ['spec', 'requires']);
  if (Array.isArray(spec.exports)) {
    spec.exports.forEach((item, index) => {
      if (isPlainObject(item)) check(item.requires, ['spec', 'exports', index, 'requires']);
    });
  }
  return problems;
}

function checkSet(
  document: YamlDocument,
  requires: Record<string, unknown>,
  path: FieldPath,
  problems: BundleProblem[],
): void {
  const problem = (field: FieldPath, message: string, suggestion?: string) =>
    problems.push(problemAt(document, { code: 'E_TOOL_REQUIRES_INVALID', path: field, message, suggestion }));
  const each = (field: string, visit: (value: string, at: FieldPath) => void) => {
    const list = requires[field];
    if (!Array.isArray(list)) return;
    list.forEach((value, index) => {
      if (typeof value === 'string') visit(value, [...path, field, index]);
    });
  };
  each('platforms', (value, at) => {
    if ((knownPlatforms as readonly string[]).includes(value)) return;
    const guess = platformAliases[value.toLowerCase()];
    problem(
      at,
      `Unknown platform "${value}"; platforms are the values of process.platform: ${knownPlatforms.join(', ')}`,
      guess ? `Did you mean "${guess}"?` : undefined,
    );
  });
  const alternatives = (field: string, pattern: RegExp, what: string) =>
    each(field, (value, at) => {
      const bad = value.split('|').find((part) => !pattern.test(part));
      if (bad === undefined) return;
      problem(
        at,
        bad === ''
          ? `"${value}" has an empty alternative; write ${what}s separated by | (e.g. a|b)`
          : `"${bad}" is not a ${what}${field === 'commands' ? ' (a name looked up on PATH: no directory, no spaces)' : ''}`,
      );
    });
  alternatives('commands', commandName, 'command name');
  alternatives('env', envName, 'environment variable name');
  alternatives('config', configKey, 'config key');
  if (typeof requires.install === 'string' && requires.install.trim() === '') {
    problem([...path, 'install'], 'install is empty; say what to install, e.g. "apt-get install playerctl"');
  }
}
