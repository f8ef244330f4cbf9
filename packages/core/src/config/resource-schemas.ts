import { connectionSpec, connectorSpec } from './connector-schemas.ts';
import type { ResourceKind } from './resources.ts';

/**
 * JSON Schemas of each kind's document (shapes in resources.ts, DESIGN.md §2). They check shape only: apiVersion,
 * kind, names, references and the Tool rules of spec §4.3 have their own codes and are checked elsewhere, so
 * `entry` and `exports` are not `required` here. Tool specs refuse unknown fields (typos matter); other kinds
 * accept them so bundles written for other Goondan runtimes still load.
 */
type Schema = Record<string, unknown>;

const object: Schema = { type: 'object' };
/** "Kind/name" or { kind, name }; the exact form is checked with the references (E_REF_INVALID). */
const objectRef: Schema = { type: ['string', 'object'] };
const refEntry: Schema = { type: ['string', 'object'], properties: { config: object } };
const positiveInteger: Schema = { type: 'integer', minimum: 1 };

const valueSource: Schema = {
  type: 'object',
  description: 'exactly one of value or valueFrom',
  properties: {
    value: { type: 'string' },
    valueFrom: {
      type: 'object',
      properties: { env: { type: 'string', minLength: 1 } },
      required: ['env'],
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
};

const riskCategory: Schema = { enum: ['safe', 'sensitive', 'restricted'] };
const permissionDecision: Schema = { enum: ['allow', 'ask', 'deny'] };
/** Tool names or globs (`*`, `?`, `{a,b}`): the characters of tool names and those, at most 128. */
const toolRules: Schema = {
  type: 'object',
  propertyNames: { pattern: '^[a-zA-Z0-9_*?{},-]{1,128}$' },
  additionalProperties: permissionDecision,
};
const permissionRules: Record<string, Schema> = {
  safe: permissionDecision,
  sensitive: permissionDecision,
  restricted: permissionDecision,
  tools: toolRules,
};
const permissionsSpec: Schema = {
  type: 'object',
  properties: {
    ...permissionRules,
    sources: {
      type: 'object',
      description: 'keys: a source kind, or kind:name',
      propertyNames: { pattern: '^[a-zA-Z0-9_.-]+(:[a-zA-Z0-9_./-]+)?$' },
      additionalProperties: { type: 'object', properties: permissionRules, additionalProperties: false },
    },
    approvalTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 604800 },
    registryDirectCalls: { type: 'array', items: { type: 'string', pattern: '^[a-zA-Z0-9_*?{},-]{1,128}$' } },
  },
  additionalProperties: false,
};

/** docs/resources.md#requires; the values (platform names, command names) are checked by check-tool-requires.ts. */
const stringList: Schema = { type: 'array', items: { type: 'string' } };
const requirementFields: Record<string, Schema> = {
  platforms: stringList,
  commands: stringList,
  env: stringList,
  dbus: { enum: ['session', 'system'] },
  config: stringList,
  install: { type: 'string' },
};
const toolRequires: Schema = {
  type: 'object',
  properties: {
    ...requirementFields,
    anyOf: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', properties: requirementFields, additionalProperties: false },
    },
  },
  additionalProperties: false,
};

const toolSpec: Schema = {
  type: 'object',
  properties: {
    entry: { type: 'string' },
    errorMessageLimit: { type: 'integer', minimum: 20 },
    timeoutMs: positiveInteger,
    outputLimit: positiveInteger,
    exports: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          parameters: object,
          category: riskCategory,
          requires: toolRequires,
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
    config: object,
    category: riskCategory,
    requires: toolRequires,
    description: { type: 'string' },
    /** Older single-function Tools (no `exports`); docs/migrating.md. */
    parameters: object,
  },
  additionalProperties: false,
};

const modelSpec: Schema = {
  type: 'object',
  properties: {
    provider: { enum: ['openai', 'anthropic', 'google', 'openai-compatible', 'scripted'] },
    model: { type: 'string' },
    apiKey: valueSource,
    baseURL: { type: 'string' },
    params: object,
    script: { type: 'array', items: object },
  },
  required: ['provider', 'model'],
};

const agentSpec: Schema = {
  type: 'object',
  properties: {
    modelConfig: { type: 'object', properties: { modelRef: objectRef, params: object }, required: ['modelRef'] },
    prompt: { type: 'object', properties: { system: { type: 'string' } } },
    tools: { type: 'array', items: refEntry },
    extensions: { type: 'array', items: refEntry },
    policy: {
      type: 'object',
      properties: { maxStepsPerTurn: positiveInteger, allowRegistryDirectCalls: { type: 'boolean' } },
    },
    permissions: permissionsSpec,
    toolConcurrency: { type: 'integer', minimum: 1, maximum: 1000 },
  },
};

const swarmSpec: Schema = {
  type: 'object',
  properties: {
    entryAgent: objectRef,
    /** A reference, or `{ ref }` (bundles written for the original Goondan). */
    agents: { type: 'array', items: objectRef },
    instanceKey: { type: 'string' },
    policy: { type: 'object', properties: { maxStepsPerTurn: positiveInteger } },
  },
  required: ['entryAgent', 'agents'],
};

const extensionSpec: Schema = {
  type: 'object',
  properties: { entry: { type: 'string', minLength: 1 }, config: object },
  required: ['entry'],
};

const loopbackOrHttps = '^(https://|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])[:/])';
const oauthAppSpec: Schema = {
  type: 'object',
  properties: {
    issuer: { type: 'string', pattern: loopbackOrHttps },
    endpoints: {
      type: 'object',
      properties: {
        authorization: { type: 'string', pattern: loopbackOrHttps },
        token: { type: 'string', pattern: loopbackOrHttps },
        deviceAuthorization: { type: 'string', pattern: loopbackOrHttps },
        revocation: { type: 'string', pattern: loopbackOrHttps },
      },
      required: ['token'],
      additionalProperties: false,
    },
    clientId: { type: 'string', minLength: 1 },
    clientSecret: valueSource,
    scopes: { type: 'array', items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }, minItems: 1 },
    subjectMode: { enum: ['global', 'user'] },
    flow: { enum: ['authorizationCode', 'deviceCode'] },
    redirectUri: { type: 'string', pattern: '^http://(127\\.0\\.0\\.1|localhost|\\[::1\\]):[0-9]+/' },
    authorizationParams: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['clientId', 'scopes', 'subjectMode', 'flow'],
  additionalProperties: false,
};

const specSchemas: Record<ResourceKind, Schema> = {
  OAuthApp: oauthAppSpec,
  Tool: toolSpec,
  Model: modelSpec,
  Agent: agentSpec,
  Swarm: swarmSpec,
  Extension: extensionSpec,
  Connector: connectorSpec,
  Connection: connectionSpec({ objectRef, valueSource }),
};

/** The schema of `spec` of a `kind` (what ignored-fields.ts compares a spec's fields with). */
export function specSchema(kind: ResourceKind): Schema {
  return specSchemas[kind];
}

/** The schema of a whole document of `kind`. */
export function resourceSchema(kind: ResourceKind): Schema {
  return {
    type: 'object',
    properties: {
      apiVersion: true,
      kind: true,
      metadata: {
        type: 'object',
        properties: { name: true, labels: { type: 'object', additionalProperties: { type: 'string' } } },
      },
      spec: specSchemas[kind],
    },
    required: ['spec'],
    additionalProperties: false,
  };
}
