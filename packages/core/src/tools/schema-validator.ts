import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchemaObject } from '../types.ts';

type Compiler = typeof import('./parameters-compiler.ts');
let compiler: Compiler | undefined;

/**
 * The validator of a tool's parameters schema, compiled at the tool's first call. Ajv and its formats are loaded
 * then too (a synchronous require of parameters-compiler.ts, the same module instance an import would give): an
 * agent process that has not called a tool yet does not hold them (about 3 MB, docs/performance.md).
 */
export function compileParameters(schema: JsonSchemaObject): ValidateFunction {
  compiler ??= require('./parameters-compiler.ts') as Compiler;
  return compiler.compileWithAjv(schema);
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
