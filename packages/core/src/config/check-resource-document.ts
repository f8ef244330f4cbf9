import { dirname } from 'node:path';
import type { Ajv } from 'ajv';
import { closestName } from '../errors/closest-names.ts';
import { DEFAULT_ERROR_MESSAGE_LIMIT } from '../errors/to-tool-error.ts';
import { checkNamePart } from '../tools/tool-name.ts';
import { checkResourceShape } from './check-resource-shape.ts';
import { checkToolRules } from './check-tool-rules.ts';
import { problemAt } from './create-problem.ts';
import type { YamlDocument } from './locate-field.ts';
import { locateField } from './locate-field.ts';
import { readOlderShapes } from './read-older-shapes.ts';
import type { BundleProblem, Resource, ResourceKind, ToolResourceSpec } from './resources.ts';
import { API_VERSION, resourceKinds } from './resources.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isResourceKind(kind: unknown): kind is ResourceKind {
  return typeof kind === 'string' && (resourceKinds as readonly string[]).includes(kind);
}

function checkEnvelope(document: YamlDocument, value: Record<string, unknown>): BundleProblem[] {
  const problems: BundleProblem[] = [];
  if (value.apiVersion !== API_VERSION) {
    const message =
      value.apiVersion === undefined
        ? `apiVersion is missing; resources use ${API_VERSION}`
        : `apiVersion ${JSON.stringify(value.apiVersion)} is not supported; resources use ${API_VERSION}`;
    problems.push(problemAt(document, { code: 'E_RESOURCE_API_VERSION', path: ['apiVersion'], message }));
  }
  if (!isResourceKind(value.kind)) {
    const kinds = resourceKinds.join(', ');
    const guess = typeof value.kind === 'string' ? closestName(value.kind, resourceKinds) : undefined;
    problems.push(
      problemAt(document, {
        code: 'E_RESOURCE_KIND_UNKNOWN',
        path: ['kind'],
        message:
          value.kind === undefined
            ? `kind is missing; kinds are ${kinds}`
            : `Unknown kind ${JSON.stringify(value.kind)}; kinds are ${kinds}`,
        suggestion: guess ? `Did you mean "${guess}"? Use one of the kinds ${kinds}.` : undefined,
      }),
    );
  }
  const name = isPlainObject(value.metadata) ? value.metadata.name : undefined;
  const reason = typeof name === 'string' ? checkNamePart(name) : 'is required, as a string';
  if (reason) {
    const message = typeof name === 'string' ? `Resource name "${name}" ${reason}` : `metadata.name ${reason}`;
    problems.push(problemAt(document, { code: 'E_NAME_INVALID', path: ['metadata', 'name'], message }));
  }
  return problems;
}

/**
 * Checks one YAML document as a resource (spec §4): envelope, shape of its kind, and for Tools the rules of §4.3.
 * Returns the resource, with defaults applied, whenever its kind and name are readable (so references to it resolve
 * and do not add noise), together with every problem found.
 */
export function checkResourceDocument(options: { document: YamlDocument; parametersAjv: Ajv; library?: string }): {
  resource: Resource | null;
  problems: BundleProblem[];
} {
  const { document } = options;
  const value = document.value;
  if (!isPlainObject(value)) {
    const problem = problemAt(document, {
      code: 'E_RESOURCE_INVALID',
      path: [],
      message: 'A resource document must be a mapping with apiVersion, kind, metadata and spec',
    });
    return { resource: null, problems: [problem] };
  }
  const problems = checkEnvelope(document, value);
  const kind = value.kind;
  if (!isResourceKind(kind)) return { resource: null, problems };
  problems.push(...checkResourceShape(document, kind));
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : undefined;
  if (kind === 'Tool') {
    const resourceName = name !== undefined && checkNamePart(name) === null ? name : undefined;
    problems.push(...checkToolRules({ document, resourceName, parametersAjv: options.parametersAjv }));
  }
  if (name === undefined || !isPlainObject(value.spec)) return { resource: null, problems };
  const { line, column } = locateField(document, []);
  return { resource: resourceOfDocument({ document, library: options.library, line, column }), problems };
}

/**
 * The resource a document declares, with defaults applied, without checking it: for a document checked already
 * (checkResourceDocument found no problem in it, or a library file the cache vouches for, library-file-cache.ts).
 * `line` and `column` are where the document starts.
 */
export function resourceOfDocument(options: {
  document: YamlDocument;
  library?: string;
  line: number;
  column: number;
}): Resource {
  const { document, line, column } = options;
  const value = document.value as Record<string, unknown> & { kind: ResourceKind; spec: Record<string, unknown> };
  const kind = value.kind;
  const spec = readOlderShapes(kind, { ...value.spec });
  if (kind === 'Tool' && spec.errorMessageLimit === undefined) {
    (spec as Partial<ToolResourceSpec>).errorMessageLimit = DEFAULT_ERROR_MESSAGE_LIMIT;
  }
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: value.metadata as Resource['metadata'],
    spec,
    location: { file: document.file, line, column, baseDir: dirname(document.absoluteFile) },
    ...(options.library === undefined ? {} : { library: options.library }),
  } as Resource;
}
