import type { Ajv } from 'ajv';
import { problemAt } from './create-problem.ts';
import type { FieldPath, YamlDocument } from './locate-field.ts';
import { formatFieldPath, pointerToPath } from './locate-field.ts';
import type { BundleProblem } from './resources.ts';

function describe(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** Where inside the schema a compile error points: its `at "#/…"` pointer, or the first key it calls unknown. */
function compileErrorPath(message: string, schema: Record<string, unknown>): (string | number)[] {
  const pointer = /at (?:path )?"#(\/[^"]*)?"/.exec(message);
  if (pointer) return pointerToPath(pointer[1] ?? '', schema);
  const keyword = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
  if (keyword === undefined) return [];
  const queue: [unknown, (string | number)[]][] = [[schema, []]];
  for (let index = 0; index < queue.length; index++) {
    const [value, path] = queue[index] ?? [];
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...(path ?? []), Array.isArray(value) ? Number(key) : key];
      if (key === keyword && !Array.isArray(value)) return childPath;
      queue.push([child, childPath]);
    }
  }
  return [];
}

/**
 * Spec §6.1, §15: an export's `parameters` must be a valid JSON Schema with `type: object` at the top. Problems are
 * E_SCHEMA_INVALID with ajv's message, at the offending keyword when ajv names it.
 */
export function checkParametersSchema(options: {
  document: YamlDocument;
  path: FieldPath;
  schema: Record<string, unknown>;
  ajv: Ajv;
}): BundleProblem[] {
  const { document, path, schema, ajv } = options;
  const problems: BundleProblem[] = [];
  const report = (at: FieldPath, message: string) =>
    problems.push(problemAt(document, { code: 'E_SCHEMA_INVALID', path: at, message }));

  if (schema.type !== 'object') {
    const got = schema.type === undefined ? 'it is missing' : `got ${JSON.stringify(schema.type)}`;
    report([...path, 'type'], `${formatFieldPath(path)}.type must be "object" (${got})`);
  }
  let metaValid: boolean;
  try {
    metaValid = ajv.validateSchema(schema) as boolean;
  } catch (thrown) {
    report(path, `${formatFieldPath(path)} is not a usable JSON Schema: ${describe(thrown)}`);
    return problems;
  }
  if (!metaValid) {
    // ajv reports one mistake several times on one path (enum, then each anyOf branch); keep the first per path.
    const seen = new Set<string>();
    for (const error of ajv.errors ?? []) {
      if (seen.has(error.instancePath)) continue;
      seen.add(error.instancePath);
      const at = [...path, ...pointerToPath(error.instancePath, schema)];
      const allowed = error.keyword === 'enum' ? `: ${(error.params.allowedValues as unknown[]).join(', ')}` : '';
      report(at, `${formatFieldPath(at)} ${error.message}${allowed}`);
    }
    return problems;
  }
  try {
    ajv.compile(schema);
  } catch (thrown) {
    const message = describe(thrown);
    const at = [...path, ...compileErrorPath(message, schema)];
    problems.push(
      problemAt(document, {
        code: 'E_SCHEMA_INVALID',
        path: at,
        message: `${formatFieldPath(path)} is not a valid JSON Schema: ${message}`,
        at: 'key',
      }),
    );
  }
  return problems;
}
