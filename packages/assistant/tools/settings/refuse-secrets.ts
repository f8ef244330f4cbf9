import { GoondanError } from '@goondan/core/errors';
import { containsCredential, isSecretKey, keyWords, knownSecretValues } from '@goondan/core/secrets';

/**
 * Settings and MCP servers are written into goondan.yaml and committed to git, so nothing that looks like a secret
 * may go there. The judges are core's (the ones redaction uses); a key kept in git is judged more strictly than a
 * key in a log line: short words redaction leaves alone because logs are full of them (`PWD` is a directory, `auth`
 * a config block), and words glued together without a separator (`githubtoken`, `openaiapikey`), count too.
 */
const abbreviations = new Set(['auth', 'bearer', 'cred', 'creds', 'pass', 'pwd', 'pin', 'otp']);
const secretEndings = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'credential',
  'credentials',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
];

const namesSecret = (word: string): boolean =>
  abbreviations.has(word) || secretEndings.some((ending) => word.endsWith(ending));

/**
 * True when a setting key or an environment variable name says it holds a secret. A word that names one on the
 * stricter reading above is judged as `secret`, so core's rule about describing words still applies: `authUrl`,
 * `pass_count`, `githubtoken_env` are not secrets.
 */
export function isSecretName(key: string): boolean {
  if (isSecretKey(key)) return true;
  const parts = keyWords(key);
  return parts.some(namesSecret) && isSecretKey(parts.map((word) => (namesSecret(word) ? 'secret' : word)).join('_'));
}

/** True when a value holds a credential of a known shape (`sk-…`, `ghp_…`, a JWT, `user:pw@`) or a known secret. */
export function holdsSecret(value: string): boolean {
  return containsCredential(value) || knownSecretValues().some((secret) => value.includes(secret));
}

const VALUE_SOURCE_PAGE = 'docs/resources.md#valuesource';
const MCP_ENV_PAGE = 'docs/mcp.md#server-fields';

/** `privateKey` → `PRIVATE_KEY`: the environment variable a secret setting would be. */
function variableName(key: string): string {
  return keyWords(key).join('_').toUpperCase() || 'SECRET';
}

/** Refuses a setting whose key names a secret or whose value holds one; settings are plain strings in git. */
export function refuseSecretSetting(key: string, value?: string): void {
  const byName = isSecretName(key);
  if (!byName && (value === undefined || !holdsSecret(value))) return;
  const variable = variableName(key);
  throw new GoondanError(
    'E_TOOL_INVALID_ARGS',
    byName
      ? `'${key}' names a secret; settings are written into goondan.yaml, which is kept in git.`
      : `The value for '${key}' looks like a credential (an API key, token or password); settings are written into goondan.yaml, which is kept in git.`,
    {
      suggestion:
        `Do not store the secret in a setting. Put it in the environment of the agent process (export ${variable}=...), ` +
        `and let what uses it read it from there with valueFrom: { env: ${variable} } (${VALUE_SOURCE_PAGE}); ` +
        `for an MCP server: settings__mcp_update_server { id: "<server>", environment: { ${variable}: { valueFrom: { env: ${variable} } } } }. ` +
        `A setting may hold the variable's name, e.g. settings__set { key: "${key}Env", value: "${variable}" }.`,
    },
  );
}

/**
 * Refuses text bound for an agent's persona, agent memory, system prompt, description or wake word that holds a
 * credential: like a setting, it is written into goondan.yaml and committed to git.
 */
export function refuseSecretText(text: string | undefined, field: string): void {
  if (text === undefined || !holdsSecret(text)) return;
  throw new GoondanError(
    'E_TOOL_INVALID_ARGS',
    `'${field}' holds what looks like a credential (an API key, token or password); it would be written in clear into goondan.yaml, which is kept in git.`,
    {
      suggestion: `Leave the secret out: put it in the environment of the agent process (export NAME=...) and let what uses it read it from there with valueFrom: { env: NAME } (${VALUE_SOURCE_PAGE}); the text may name the variable instead.`,
    },
  );
}

/** A value of an MCP server's `environment`: text, or read from the agent process's environment when it starts. */
export type EnvironmentValue = string | { valueFrom: { env: string } };

/**
 * Refuses an MCP server whose `environment` gives a secret in clear (by the variable's name or by the value's
 * shape), or whose command or arguments hold a credential: all of it would be committed with goondan.yaml.
 */
export function refuseSecretServer(input: {
  command?: string;
  arguments?: readonly string[];
  environment?: Readonly<Record<string, EnvironmentValue>>;
}): void {
  for (const [name, value] of Object.entries(input.environment ?? {})) {
    if (typeof value !== 'string' || !(isSecretName(name) || holdsSecret(value))) continue;
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `environment.${name} ${isSecretName(name) ? 'names a secret' : 'looks like a credential'}; given as text it would be written in clear into goondan.yaml, which is kept in git.`,
      {
        suggestion: `Give it as environment: { "${name}": { "valueFrom": { "env": "${name}" } } } and set ${name} in the environment of the agent process before it starts: the server gets the value then, and the bundle holds only the name (${MCP_ENV_PAGE}).`,
      },
    );
  }
  const texts = [...(input.command === undefined ? [] : [input.command]), ...(input.arguments ?? [])];
  if (texts.some(holdsSecret))
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      'The command or its arguments hold what looks like a credential; they would be written in clear into goondan.yaml, which is kept in git.',
      {
        suggestion: `Pass the secret through the environment instead: environment: { "NAME": { "valueFrom": { "env": "NAME" } } }, with NAME set in the agent process's environment and read by the server (${MCP_ENV_PAGE}).`,
      },
    );
}
