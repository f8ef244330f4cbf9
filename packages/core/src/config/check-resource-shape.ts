import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { closestName } from '../errors/closest-names.ts';
import { compileCachedValidator } from './cached-validator.ts';
import { problemAt } from './create-problem.ts';
import type { FieldPath, YamlDocument } from './locate-field.ts';
import { formatFieldPath, pointerToPath } from './locate-field.ts';
import { resourceSchema } from './resource-schemas.ts';
import type { BundleProblem, ResourceKind } from './resources.ts';

// `code.source` lets a compiled validator be kept as standalone code (cached-validator.ts). Created (and Ajv
// required) on the first cache miss only: with every validator cached, a start does not load Ajv.
let ajv: Ajv | undefined;
function shapeAjv(): Ajv {
  if (!ajv) {
    const { Ajv } = require('ajv') as typeof import('ajv');
    ajv = new Ajv({ allErrors: true, verbose: true, allowUnionTypes: true, code: { source: true } });
  }
  return ajv;
}
const validators = new Map<ResourceKind, ValidateFunction>();

function validatorFor(kind: ResourceKind): ValidateFunction {
  let validate = validators.get(kind);
  if (!validate) {
    validate = compileCachedValidator({
      get ajv() {
        return shapeAjv();
      },
      schema: resourceSchema(kind),
      name: 'resource-shape',
    });
    validators.set(kind, validate);
  }
  return validate;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  // JSON has no word for these (it writes null): `.inf`, `1e400`, `.nan` in YAML.
  if (typeof value === 'number' && !Number.isFinite(value)) return `number ${value}`;
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 37)}...` : text}`;
}

function subject(path: FieldPath): string {
  return path.length === 0 ? 'The document' : formatFieldPath(path);
}

/** One ajv error as a problem at the YAML node it concerns. */
function schemaErrorToProblem(document: YamlDocument, error: ErrorObject): BundleProblem {
  const path = pointerToPath(error.instancePath, document.value);
  const at = (fieldPath: FieldPath, message: string, extra: { suggestion?: string; at?: 'key' } = {}) =>
    problemAt(document, { code: 'E_RESOURCE_INVALID', path: fieldPath, message, ...extra });
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(error.params.additionalProperty);
      const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      const guess = closestName(field, known);
      // The YAML 1.1 merge key is not read as a merge (YAML 1.2, as every Goondan file): it would be a field.
      const suggestion =
        field === '<<'
          ? `YAML merge keys (<<: *anchor) are not supported: write the fields out, or use the anchor as the whole value (field: *anchor). Known fields: ${known.join(', ')}.`
          : `${guess ? `Did you mean "${guess}"? ` : ''}Known fields: ${known.join(', ')}.`;
      return at([...path, field], `${subject(path)} has unknown field "${field}"`, { suggestion, at: 'key' });
    }
    case 'required':
      return at(
        [...path, String(error.params.missingProperty)],
        `${subject(path)} is missing required field "${error.params.missingProperty}"`,
      );
    case 'enum': {
      const allowed = (error.params.allowedValues as unknown[]).map(String).join(', ');
      return at(path, `${subject(path)} must be one of: ${allowed} (got ${describeValue(error.data)})`);
    }
    case 'minProperties':
    case 'maxProperties': {
      const description = error.parentSchema?.description;
      return at(path, `${subject(path)} ${description ? `must have ${description}` : error.message}`);
    }
    case 'type':
      return at(path, `${subject(path)} ${error.message} (got ${describeValue(error.data)})`);
    default:
      return at(path, `${subject(path)} ${error.message}`);
  }
}

/** Shape problems of a document whose kind is known (E_RESOURCE_INVALID, one per ajv error). */
export function checkResourceShape(document: YamlDocument, kind: ResourceKind): BundleProblem[] {
  const validate = validatorFor(kind);
  if (validate(document.value)) return [];
  return (validate.errors ?? []).map((error) => schemaErrorToProblem(document, error));
}
