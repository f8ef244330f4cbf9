import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchemaObject } from '../types.ts';
import { linearRegExp } from './linear-reg-exp.ts';

/**
 * One Ajv for runtime argument checks; validators are compiled once per distinct schema and shared. Patterns run in
 * linear time (`linearRegExp`): a model or MCP client chooses the values, so a catastrophic pattern must not stall us.
 * Loaded by compileParameters on the first call that needs it (schema-validator.ts).
 */
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, code: { regExp: linearRegExp } });
addFormats(ajv);
const cache = new Map<string, ValidateFunction>();

export function compileWithAjv(schema: JsonSchemaObject): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(key, validate);
  }
  return validate;
}
