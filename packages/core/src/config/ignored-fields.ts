import { closestName } from '../errors/closest-names.ts';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import type { FieldPath } from './locate-field.ts';
import { specSchema } from './resource-schemas.ts';
import type { BundleProblem, ResourceKind } from './resources.ts';

type Schema = Record<string, unknown>;

const articles: Record<ResourceKind, string> = {
  OAuthApp: 'an OAuthApp',
  Tool: 'a Tool',
  Model: 'a Model',
  Agent: 'an Agent',
  Swarm: 'a Swarm',
  Extension: 'an Extension',
  Connector: 'a Connector',
  Connection: 'a Connection',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object schema that lists every field it reads (free-form objects such as `params` or `config` do not). */
function fieldsOf(schema: unknown): Schema | null {
  if (!isPlainObject(schema) || schema.type !== 'object' || !isPlainObject(schema.properties)) return null;
  return schema.properties as Schema;
}

/**
 * Warnings (not problems: the bundle still loads) for fields of the bundle's own resources that this runtime does
 * not read. Kinds other than Tool accept unknown fields, so bundles written for other Goondan runtimes load; a
 * misspelt field (`modelConfg`, `tols`) was then silently ignored and `gdn validate` said the bundle was valid. Each
 * is `E_FIELD_IGNORED` at the field, with the field it most likely meant. Fields a schema refuses
 * (`additionalProperties: false`) are problems of the shape check, not warnings here; libraries are not checked.
 */
export function ignoredFields(declared: readonly DeclaredResource[]): BundleProblem[] {
  const warnings: BundleProblem[] = [];
  for (const { resource, document } of declared) {
    if (resource.library !== undefined) continue;
    const visit = (value: unknown, schema: unknown, path: FieldPath) => {
      const fields = fieldsOf(schema);
      if (!fields || !isPlainObject(value)) return;
      const closed = (schema as Schema).additionalProperties === false;
      for (const [key, child] of Object.entries(value)) {
        if (Object.hasOwn(fields, key)) {
          visit(child, fields[key], [...path, key]);
          continue;
        }
        if (closed) continue;
        const known = Object.keys(fields);
        // A guess only when it starts alike: `hooks` of another runtime is not a misspelt `tools`.
        const guess = closestName(key, known);
        const meant = guess?.[0]?.toLowerCase() === key[0]?.toLowerCase() ? guess : undefined;
        const where = [...path, key].join('.');
        warnings.push(
          problemAt(document, {
            code: 'E_FIELD_IGNORED',
            path: [...path, key],
            at: 'key',
            message: `${where} is not a field of ${articles[resource.kind]} and is ignored${meant ? `; did you mean ${meant}?` : ''}`,
            suggestion: `Fields here: ${known.join(', ')}. Remove the field, or fix its name if it is misspelt.`,
          }),
        );
      }
    };
    visit(resource.spec, specSchema(resource.kind), ['spec']);
  }
  return warnings;
}
