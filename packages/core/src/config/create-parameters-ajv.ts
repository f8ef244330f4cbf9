import type { Ajv } from 'ajv';

/**
 * The Ajv that compiles tool `parameters` (spec §6.1), at load time and when calls are validated, so both agree.
 * Strict, so typos such as `requried` are errors instead of silently ignored keywords; two strict checks are relaxed
 * because they reject valid schemas: `strictRequired` (a `required` inside anyOf names properties of the parent) and
 * union types (`type: [string, "null"]` is how providers spell nullable). Schemas with `$id` are not kept, so two
 * tools may reuse one. Patterns run on RE2 (`linearRegExp`), as at call time, so a schema is refused here exactly
 * when calls could not check it.
 */
export function createParametersAjv(): Ajv {
  // Required here, not imported at the top: Ajv, its formats and RE2 take ~60 ms to load, and a bundle whose Tools
  // are all libraries' (checked once, library-file-cache.ts) never compiles a parameters schema at load.
  const { Ajv } = require('ajv') as typeof import('ajv');
  const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
  const { linearRegExp } = require('../tools/linear-reg-exp.ts') as typeof import('../tools/linear-reg-exp.ts');
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    addUsedSchema: false,
    code: { regExp: linearRegExp },
  });
  addFormats(ajv);
  return ajv;
}
