import { API_VERSION, checkNamePart, resourceKinds } from '@goondan/core';
import { type Document, isMap, LineCounter, parseAllDocuments } from 'yaml';

/** One rewrite gdn migrate made, or one part it left for a person (docs/migrating.md). */
export interface MigrationNote {
  line: number;
  /** `Kind/name` of the document, when readable. */
  resource: string;
  path: string;
  message: string;
}

export interface MigrationResult {
  /** The rewritten text; the input itself when nothing changed. */
  text: string;
  changes: MigrationNote[];
  unconverted: MigrationNote[];
}

type Path = (string | number)[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `postMessage` → `post_message`, `slack.post` → `post`: an export name as spec §6.2 allows. */
function exportName(name: string, resource: string): string {
  const last = name.startsWith(`${resource}.`) ? name.slice(resource.length + 1) : name;
  return last
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
}

const knownKinds = new Set<string>([...resourceKinds, 'Package']);

/**
 * Rewrites, in the YAML text of one goondan.yaml, the shapes of older Goondan bundles that do not load as they are
 * (docs/migrating.md): other apiVersions, v1 Tool `runtime`, dotted or camelCase export names, references written
 * as bare names or with an `apiVersion`. Comments and layout are kept (yaml's Document API); nothing is written
 * unless something changed. What cannot be rewritten without guessing is listed in `unconverted`.
 */
export function migrateBundleText(text: string): MigrationResult {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter });
  const changes: MigrationNote[] = [];
  const unconverted: MigrationNote[] = [];
  if (!Array.isArray(documents) || documents.some((document) => document.errors.length > 0)) {
    const first = Array.isArray(documents) ? documents.find((document) => document.errors.length > 0) : undefined;
    const error = first?.errors[0];
    unconverted.push({
      line: error ? lineCounter.linePos(error.pos[0]).line : 1,
      resource: '',
      path: '',
      message: `the YAML does not parse (${error?.message.split('\n')[0] ?? 'empty'}); fix it first (gdn validate shows where)`,
    });
    return { text, changes, unconverted };
  }
  for (const document of documents) migrateDocument(document, lineCounter, changes, unconverted);
  const text2 = changes.length > 0 ? documents.map((document) => document.toString()).join('') : text;
  return { text: text2, changes, unconverted };
}

function migrateDocument(
  document: Document.Parsed,
  lineCounter: LineCounter,
  changes: MigrationNote[],
  unconverted: MigrationNote[],
): void {
  if (!isMap(document.contents)) return;
  const value = document.toJS() as Record<string, unknown>;
  const kind = typeof value.kind === 'string' ? value.kind : '?';
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '?';
  const resource = `${kind}/${name}`;
  const lineOf = (path: Path) => {
    const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0] ?? document.contents?.range[0] ?? 0;
    return lineCounter.linePos(offset).line;
  };
  const note = (list: MigrationNote[], path: Path, message: string) =>
    list.push({ line: lineOf(path), resource, path: path.join('.'), message });
  const change = (path: Path, message: string, apply: () => void) => {
    note(changes, path, message);
    apply();
  };

  if (!knownKinds.has(kind)) {
    note(unconverted, ['kind'], `kind ${kind} has no form in this runtime (kinds: ${[...knownKinds].join(', ')})`);
    return;
  }
  if (value.apiVersion !== API_VERSION) {
    change(['apiVersion'], `apiVersion ${JSON.stringify(value.apiVersion ?? null)} → ${API_VERSION}`, () =>
      document.set('apiVersion', API_VERSION),
    );
  }
  if (kind !== 'Package' && name !== '?' && checkNamePart(name) !== null) {
    note(
      unconverted,
      ['metadata', 'name'],
      `name "${name}" ${checkNamePart(name)}; rename it and every reference to it`,
    );
  }
  const spec = isPlainObject(value.spec) ? value.spec : {};
  const fixRef = (path: Path, ref: unknown, expected: string) => {
    if (typeof ref === 'string' && ref !== '' && !ref.includes('/')) {
      change(path, `reference "${ref}" → "${expected}/${ref}"`, () => document.setIn(path, `${expected}/${ref}`));
    } else if (isPlainObject(ref) && 'apiVersion' in ref && typeof ref.name === 'string') {
      change(path, 'reference: apiVersion dropped (references are { kind, name, package? })', () =>
        document.deleteIn([...path, 'apiVersion']),
      );
    }
  };
  const fixEntries = (field: string, expected: string) => {
    const list = spec[field];
    if (!Array.isArray(list)) return;
    list.forEach((entry, index) => {
      const path = ['spec', field, index];
      if (isPlainObject(entry) && 'ref' in entry) fixRef([...path, 'ref'], entry.ref, expected);
      else fixRef(path, entry, expected);
    });
  };

  if (kind === 'Tool')
    migrateTool({ spec, name, change, note: (path, message) => note(unconverted, path, message), document });
  if (kind === 'Agent') {
    const modelConfig = isPlainObject(spec.modelConfig) ? spec.modelConfig : {};
    if (modelConfig.modelRef !== undefined) fixRef(['spec', 'modelConfig', 'modelRef'], modelConfig.modelRef, 'Model');
    fixEntries('tools', 'Tool');
    fixEntries('extensions', 'Extension');
  }
  if (kind === 'Swarm') {
    if (spec.entryAgent !== undefined) fixRef(['spec', 'entryAgent'], spec.entryAgent, 'Agent');
    fixEntries('agents', 'Agent');
  }
  if (kind === 'Connection') {
    if (spec.connectorRef !== undefined) fixRef(['spec', 'connectorRef'], spec.connectorRef, 'Connector');
    if (spec.swarmRef !== undefined) fixRef(['spec', 'swarmRef'], spec.swarmRef, 'Swarm');
  }
  if (kind === 'Connector' || kind === 'Connection') {
    for (const [path, message] of connectorShapeProblems(kind, spec)) note(unconverted, path, message);
  }
}

/** The fields of the Connector and Connection shapes this runtime reads (docs/connectors.md). */
const connectorFields = {
  Connector: { fields: ['entry', 'events'], required: 'entry' },
  Connection: { fields: ['connectorRef', 'swarmRef', 'secrets', 'config', 'ingress'], required: 'connectorRef' },
} as const;

/**
 * What of a Connector or Connection does not have the shape this runtime reads. The specification describes no
 * older Connector shape (docs/decisions.md, issue 19 connectors), so nothing is rewritten: each such part is listed
 * for a person, with the fields that exist.
 */
function connectorShapeProblems(kind: 'Connector' | 'Connection', spec: Record<string, unknown>): [Path, string][] {
  const { fields, required } = connectorFields[kind];
  const known: readonly string[] = fields;
  const problems: [Path, string][] = [];
  const help = `rewrite it by hand in the shape of docs/connectors.md (fields: ${fields.join(', ')})`;
  for (const key of Object.keys(spec)) {
    if (!known.includes(key)) problems.push([['spec', key], `spec.${key} is not a field of a ${kind}: ${help}`]);
  }
  if (spec[required] === undefined) problems.push([['spec'], `spec.${required} is missing: ${help}`]);
  const ingress = spec.ingress;
  const rulesList = isPlainObject(ingress) && (ingress.rules === undefined || Array.isArray(ingress.rules));
  if (kind === 'Connection' && ingress !== undefined && !rulesList) {
    problems.push([['spec', 'ingress'], `spec.ingress must be { rules: [ { match?, route? }, ... ] }: ${help}`]);
  }
  return problems;
}

function migrateTool(options: {
  spec: Record<string, unknown>;
  name: string;
  document: Document.Parsed;
  change: (path: Path, message: string, apply: () => void) => void;
  note: (path: Path, message: string) => void;
}): void {
  const { spec, name, document, change, note } = options;
  if (spec.runtime !== undefined) {
    change(['spec', 'runtime'], `spec.runtime ${JSON.stringify(spec.runtime)} removed: every handler runs on Bun`, () =>
      document.deleteIn(['spec', 'runtime']),
    );
  }
  if (spec.auth !== undefined) {
    note(
      ['spec', 'auth'],
      'spec.auth (an OAuthApp reference) has no v2 form; get tokens from the oauth service (docs/oauth.md)',
    );
  }
  if (spec.exports !== undefined && spec.parameters !== undefined) {
    note(
      ['spec', 'parameters'],
      'both spec.parameters and spec.exports: move the parameters into the export they belong to',
    );
  }
  if (!Array.isArray(spec.exports)) return;
  const taken = new Set(spec.exports.map((item) => (isPlainObject(item) ? item.name : undefined)));
  spec.exports.forEach((item, index) => {
    if (!isPlainObject(item) || typeof item.name !== 'string' || checkNamePart(item.name) === null) return;
    const renamed = exportName(item.name, name);
    const path = ['spec', 'exports', index, 'name'];
    if (renamed === '' || checkNamePart(renamed) !== null || taken.has(renamed)) {
      note(path, `export name "${item.name}" ${checkNamePart(item.name)}; choose a name and rename its handler too`);
      return;
    }
    taken.add(renamed);
    change(
      path,
      `export "${item.name}" → "${renamed}" (the model sees ${name}__${renamed}); rename its key in the module's handlers too`,
      () => document.setIn(path, renamed),
    );
  });
}
