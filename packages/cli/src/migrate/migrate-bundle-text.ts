import { isDeepStrictEqual } from 'node:util';
import {
  API_VERSION,
  checkNamePart,
  deleteInSource,
  GoondanError,
  resourceKinds,
  setInSource,
  yamlLimits,
} from '@goondan/core';
import { Composer, CST, type Document, isMap, LineCounter, Parser, parseAllDocuments } from 'yaml';

/** One rewrite gdn migrate made, or one part it left for a person (docs/migrating.md). */
export interface MigrationNote {
  line: number;
  /** `Kind/name` of the document, when readable. */
  resource: string;
  path: string;
  message: string;
}

export interface MigrationResult {
  /** The rewritten text: only the changed scalars and removed keys differ (BOM, line endings, layout kept). */
  text: string;
  changes: MigrationNote[];
  unconverted: MigrationNote[];
}

type Path = (string | number)[];

/** One rewrite, made to the source text and, to check it against, to a Document parsed on the side. */
type Edit = { type: 'set'; value: string } | { type: 'delete' };

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
 * as bare names or with an `apiVersion`. Only the changed values and removed keys differ in the result: comments,
 * layout, flow lists, a BOM and the line endings stay byte for byte (setInSource / deleteInSource of @goondan/core,
 * yaml-edit/edit-yaml-source.ts). What cannot be rewritten without guessing is listed in `unconverted`.
 */
export function migrateBundleText(text: string): MigrationResult {
  const lineCounter = new LineCounter();
  const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
  const documents = [...new Composer({ keepSourceTokens: true }).compose(tokens)];
  const changes: MigrationNote[] = [];
  const unconverted: MigrationNote[] = [];
  const error = documents.flatMap((document) => document.errors)[0] ?? unreadableValue(documents);
  if (error) {
    unconverted.push({
      line: lineCounter.linePos(error.pos[0]).line,
      resource: '',
      path: '',
      message: `the YAML does not parse (${error.message.split('\n')[0]}); fix it first (gdn validate shows where)`,
    });
    return { text, changes, unconverted };
  }
  const expected = parseAllDocuments(text) as Document.Parsed[];
  documents.forEach((document, index) => {
    const edit = (path: Path, change: Edit) => {
      if (change.type === 'set') {
        setInSource(document, path, change.value);
        expected[index]!.setIn(path, change.value);
      } else {
        deleteInSource(document, path);
        expected[index]!.deleteIn(path);
      }
    };
    migrateDocument({ document, lineCounter, changes, unconverted, edit });
  });
  if (changes.length === 0) return { text, changes, unconverted };
  const rewritten = tokens.map((part) => CST.stringify(part)).join('');
  checkReadsBack(rewritten, expected);
  return { text: rewritten, changes, unconverted };
}

/**
 * The first document whose value cannot be built within the loader's limit on aliases (a "billion laughs"), as a
 * parse error at its start: yaml throws when reading it, which would otherwise end gdn with a stack trace.
 */
function unreadableValue(documents: Document.Parsed[]): { pos: [number, number]; message: string } | undefined {
  for (const document of documents) {
    try {
      document.toJS({ maxAliasCount: yamlLimits.maxAliasCount });
    } catch (error) {
      const start = document.contents?.range?.[0] ?? 0;
      return { pos: [start, start], message: error instanceof Error ? error.message : String(error) };
    }
  }
  return undefined;
}

/** The rewritten text must read as the same data as the Document edited on the side; otherwise nothing is written. */
function checkReadsBack(rewritten: string, expected: Document.Parsed[]): void {
  const reread = parseAllDocuments(rewritten) as Document.Parsed[];
  const same =
    reread.length === expected.length &&
    reread.every(
      (document, index) => document.errors.length === 0 && isDeepStrictEqual(document.toJS(), expected[index]!.toJS()),
    );
  if (!same) {
    const message = 'the rewritten goondan.yaml would not read as intended; nothing was written (edit it by hand)';
    throw new GoondanError('E_MIGRATE_UNCONVERTED', message);
  }
}

function migrateDocument(options: {
  document: Document.Parsed;
  lineCounter: LineCounter;
  changes: MigrationNote[];
  unconverted: MigrationNote[];
  edit: (path: Path, change: Edit) => void;
}): void {
  const { document, lineCounter, changes, unconverted, edit } = options;
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
  const change = (path: Path, message: string, rewrite: Edit) => {
    note(changes, path, message);
    edit(path, rewrite);
  };

  if (!knownKinds.has(kind)) {
    note(unconverted, ['kind'], `kind ${kind} has no form in this runtime (kinds: ${[...knownKinds].join(', ')})`);
    return;
  }
  if (value.apiVersion !== API_VERSION) {
    change(['apiVersion'], `apiVersion ${JSON.stringify(value.apiVersion ?? null)} → ${API_VERSION}`, {
      type: 'set',
      value: API_VERSION,
    });
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
      change(path, `reference "${ref}" → "${expected}/${ref}"`, { type: 'set', value: `${expected}/${ref}` });
    } else if (isPlainObject(ref) && 'apiVersion' in ref && typeof ref.name === 'string') {
      change([...path, 'apiVersion'], 'reference: apiVersion dropped (references are { kind, name, package? })', {
        type: 'delete',
      });
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

  if (kind === 'Tool') migrateTool({ spec, name, change, note: (path, message) => note(unconverted, path, message) });
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
  change: (path: Path, message: string, rewrite: Edit) => void;
  note: (path: Path, message: string) => void;
}): void {
  const { spec, name, change, note } = options;
  if (spec.runtime !== undefined) {
    change(['spec', 'runtime'], `spec.runtime ${JSON.stringify(spec.runtime)} removed: every handler runs on Bun`, {
      type: 'delete',
    });
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
      { type: 'set', value: renamed },
    );
  });
}
