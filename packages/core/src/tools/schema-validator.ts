import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchemaObject } from '../types.ts';
import { linearRegExp } from './linear-reg-exp.ts';

/**
 * One Ajv for runtime argument checks; validators are compiled once per distinct schema and shared. Patterns run in
 * linear time (`linearRegExp`): a model or MCP client chooses the values, so a catastrophic pattern must not stall us.
 */
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, code: { regExp: linearRegExp } });
addFormats(ajv);
const cache = new Map<string, ValidateFunction>();

export function compileParameters(schema: JsonSchemaObject): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(key, validate);
  }
  return validate;
}

/** Every problem, with its path: `city: is required; count: must be integer`. */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const base = error.instancePath === '' ? '' : error.instancePath.slice(1).replaceAll('/', '.');
    if (error.keyword === 'required') {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      return `${base ? `${base}.` : ''}${missing}: is required`;
    }
    if (error.keyword === 'additionalProperties') {
      const extra = String((error.params as { additionalProperty: string }).additionalProperty);
      return `${base ? `${base}.` : ''}${extra}: is not an allowed property`;
    }
    const where = base === '' ? '(arguments)' : base;
    const allowed =
      error.keyword === 'enum' ? ` ${JSON.stringify((error.params as { allowedValues: unknown }).allowedValues)}` : '';
    return `${where}: ${error.message ?? error.keyword}${allowed}`;
  });
}
