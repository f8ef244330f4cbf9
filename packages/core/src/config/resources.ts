import type { OAuthAppResourceSpec } from '../oauth/oauth-types.ts';
import type { AgentPermissionsSpec, RiskCategory } from '../permissions/permission-types.ts';
import type { JsonObject, ObjectRef, ToolExportSpec, ValueSource } from '../types.ts';

/** Resource shapes (spec §4, DESIGN.md §2). Every resource keeps where it was declared, for error messages. */

export const API_VERSION = 'goondan.ai/v1';
export const resourceKinds = [
  'Model',
  'Agent',
  'Swarm',
  'Tool',
  'Extension',
  'OAuthApp',
  'Connector',
  'Connection',
] as const;
export type ResourceKind = (typeof resourceKinds)[number];

export interface SourceLocation {
  /** Path relative to the bundle root, with forward slashes. */
  file: string;
  line: number;
  column: number;
}

export interface ResourceMetadata {
  name: string;
  labels?: Record<string, string>;
}

interface ResourceBase<K extends ResourceKind, S> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: ResourceMetadata;
  spec: S;
  /** Where the document starts, and the directory relative paths in it resolve against (absolute). */
  location: SourceLocation & { baseDir: string };
  /** From a library bundle such as @goondan/base, or a dependency of the Package, rather than the user's own files. */
  library?: string;
}

export interface ToolResourceSpec {
  entry: string;
  errorMessageLimit?: number;
  /** Addition: per-call timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Addition: cap on a successful output's JSON size, in characters (default 100 000). */
  outputLimit?: number;
  /** `requires` (addition): what this export needs besides the Tool's own spec.requires. */
  exports: (ToolExportSpec & { requires?: ToolRequirements })[];
  /** Risk category of exports that declare none (default `sensitive`; docs/permissions.md). */
  category?: RiskCategory;
  /** Settings the handler reads as `ctx.config` (e.g. http-fetch's allowPrivateNetwork). */
  config?: JsonObject;
  /** Addition: what the backend needs on this machine (docs/resources.md#requires). */
  requires?: ToolRequirements;
  /** What the Tool is for (older bundles; each export has its own description for the model). */
  description?: string;
  /**
   * Set by the loader for an older single-function Tool (`spec.parameters`, no `exports`): its one export `run` is
   * served by the module's only handler, `handler` or default export (docs/migrating.md).
   */
  singleFunction?: boolean;
  /** Older single-function Tools only: the one function's parameters (copied to `exports[0]`). */
  parameters?: JsonObject;
}

/**
 * Addition (docs/resources.md#requires): what a Tool's backend needs on this machine. Every field given must hold;
 * `a|b` in an entry means either. `anyOf`: at least one of the sets must hold (one per platform, typically).
 * A Tool whose needs are unmet is not registered: never offered to the model, and `gdn tools list --all` says why.
 */
export interface ToolRequirements {
  /** process.platform values, e.g. linux, darwin. */
  platforms?: string[];
  /** Commands that must be on PATH. */
  commands?: string[];
  /** Environment variables that must be set and non-empty. */
  env?: string[];
  /** A reachable D-Bus bus. */
  dbus?: 'session' | 'system';
  /** Keys of the Tool's effective config that must be set (spec.config with the Agent's per-tool config). */
  config?: string[];
  /** What to do when a need is unmet, e.g. `apt-get install playerctl`. */
  install?: string;
  anyOf?: Omit<ToolRequirements, 'anyOf'>[];
}

export interface ModelResourceSpec {
  provider: 'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'scripted';
  model: string;
  apiKey?: ValueSource;
  baseURL?: string;
  params?: JsonObject;
  /** Scripted provider only: the steps to play back. */
  script?: JsonObject[];
}

/** An Agent's tool entry; `config` is merged over the Tool's own spec.config for this agent. */
export type ToolRefEntry = ObjectRef | { ref: ObjectRef; config?: JsonObject };

export interface AgentResourceSpec {
  modelConfig?: { modelRef: ObjectRef; params?: JsonObject };
  prompt?: { system?: string };
  tools?: ToolRefEntry[];
  extensions?: (ObjectRef | { ref: ObjectRef; config?: JsonObject })[];
  /** `allowRegistryDirectCalls: true` is the same as `permissions.registryDirectCalls: ["*"]`. */
  policy?: { maxStepsPerTurn?: number; allowRegistryDirectCalls?: boolean };
  /** Which tools run, ask a person first, or are refused (docs/permissions.md). */
  permissions?: AgentPermissionsSpec;
  /** How many tool calls of one step run at once (default 4; calls waiting for approval are not counted). */
  toolConcurrency?: number;
}

export interface SwarmResourceSpec {
  entryAgent: ObjectRef;
  agents: ObjectRef[];
  instanceKey?: string;
  policy?: { maxStepsPerTurn?: number };
}

export interface ExtensionResourceSpec {
  entry: string;
  config?: JsonObject;
}

/** A property type an event declares (docs/connectors.md). */
export type ConnectorPropertyType = 'string' | 'number' | 'boolean';

/** A protocol adapter run in a process of its own (docs/connectors.md). */
export interface ConnectorResourceSpec {
  /** Module whose default export runs the adapter: `export default async function (ctx: ConnectorContext)`. */
  entry: string;
  /** The events it emits, each with its typed properties. */
  events?: { name: string; properties?: Record<string, { type: ConnectorPropertyType; optional?: boolean }> }[];
}

/** One ingress rule of a Connection: the first whose `match` holds routes the event. */
export interface IngressRule {
  /** Absent: every event matches. `properties` must all be equal (AND). */
  match?: { event?: string; properties?: Record<string, string | number | boolean> };
  route?: {
    /** Default: the Swarm's entryAgent. */
    agentRef?: ObjectRef;
    /** A fixed instance key. */
    instanceKey?: string;
    /** The instance key is this event property's value, after `instanceKeyPrefix`. */
    instanceKeyProperty?: string;
    instanceKeyPrefix?: string;
    /**
     * Who the turn acts for (its auth.userId, spec v1 §12.5.3): this event property's value, after `userIdPrefix`
     * (grants of `subjectMode: user` OAuthApps are per user).
     */
    userIdProperty?: string;
    userIdPrefix?: string;
  };
}

/** Binds a Connector to a Swarm (docs/connectors.md). */
export interface ConnectionResourceSpec {
  connectorRef: ObjectRef;
  /** Default: the Swarm being served. */
  swarmRef?: ObjectRef;
  /** Values the connector reads as `ctx.secrets` (never logged). */
  secrets?: Record<string, ValueSource>;
  /** Values the connector reads as `ctx.config`. */
  config?: Record<string, ValueSource>;
  ingress?: { rules?: IngressRule[] };
}

export type ToolResource = ResourceBase<'Tool', ToolResourceSpec>;
export type ModelResource = ResourceBase<'Model', ModelResourceSpec>;
export type AgentResource = ResourceBase<'Agent', AgentResourceSpec>;
export type SwarmResource = ResourceBase<'Swarm', SwarmResourceSpec>;
export type ExtensionResource = ResourceBase<'Extension', ExtensionResourceSpec>;
export type ConnectorResource = ResourceBase<'Connector', ConnectorResourceSpec>;
export type ConnectionResource = ResourceBase<'Connection', ConnectionResourceSpec>;
/** docs/resources.md#oauthapp, docs/oauth.md */
export type OAuthAppResource = ResourceBase<'OAuthApp', OAuthAppResourceSpec>;
export type Resource =
  | ToolResource
  | ModelResource
  | AgentResource
  | SwarmResource
  | ExtensionResource
  | OAuthAppResource
  | ConnectorResource
  | ConnectionResource;

/** One problem found while loading or validating a bundle (the JSON form of `gdn validate`). */
export interface BundleProblem {
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
  /** Field path inside the document, e.g. `spec.exports[1].name`. */
  path: string;
  suggestion: string;
  helpUrl: string;
}

/** A validated bundle: every resource by `Kind/name`, and the absolute root directory. */
export interface Bundle {
  rootDir: string;
  resources: Map<string, Resource>;
  /** The library bundle directories it was loaded with (e.g. @goondan/base), in load order (addition). */
  libraries?: string[];
  /** The bundle's `kind: Package` document, when it has one (docs/packages.md). */
  package?: PackageInfo;
}

/** What a bundle's `kind: Package` document says (docs/packages.md). */
export interface PackageInfo {
  /** An npm package name, scoped (`@acme/helpdesk`) or not. */
  name: string;
  version: string;
  description?: string;
  dependencies: PackageDependency[];
}

export interface PackageDependency {
  name: string;
  /** A semver range (`^0.1.0`), checked against the installed package's version. */
  version: string;
  /** Its index in spec.dependencies, for problems. */
  index: number;
}
